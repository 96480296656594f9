
Bx_scaleJþ