Bx_scaleJ
œ<=