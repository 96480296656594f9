
Bx_scaleJýS