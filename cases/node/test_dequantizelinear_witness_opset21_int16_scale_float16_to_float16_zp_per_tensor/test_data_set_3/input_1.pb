
Bx_scaleJ;E