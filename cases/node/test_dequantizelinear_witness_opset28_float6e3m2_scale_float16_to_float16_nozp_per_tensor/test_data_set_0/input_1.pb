
Bx_scaleJát