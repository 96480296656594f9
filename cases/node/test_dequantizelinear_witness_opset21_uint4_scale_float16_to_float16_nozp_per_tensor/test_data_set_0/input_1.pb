
Bx_scaleJFu