
Bx_scaleJÿÿ