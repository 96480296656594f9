
Bx_scaleJÿ}