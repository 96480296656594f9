Bx_scaleJ
g;