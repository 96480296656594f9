
Bx_scaleJ