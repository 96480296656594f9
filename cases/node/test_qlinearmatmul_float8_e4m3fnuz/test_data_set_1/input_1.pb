Ba_scaleJ
=