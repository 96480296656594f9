
Bx_scaleJïz