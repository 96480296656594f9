
Bx_scaleJf.