Bx_scaleJx
ø<