
Bx_scaleJü