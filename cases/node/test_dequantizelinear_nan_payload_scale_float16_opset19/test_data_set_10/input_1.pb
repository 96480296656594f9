
Bx_scaleJ|