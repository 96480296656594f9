
Bx_scaleJ€