
Bx_scaleJx