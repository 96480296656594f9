
Bx_scaleJÿý