
Bx_scaleJ|