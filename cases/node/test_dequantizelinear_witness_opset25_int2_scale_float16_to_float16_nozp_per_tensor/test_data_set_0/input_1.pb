
Bx_scaleJWx