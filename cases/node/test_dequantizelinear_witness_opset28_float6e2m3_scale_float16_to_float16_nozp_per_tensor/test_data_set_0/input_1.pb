
Bx_scaleJúu