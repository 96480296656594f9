Ba_scaleJ¯*
;