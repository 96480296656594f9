
Bx_scaleJ{