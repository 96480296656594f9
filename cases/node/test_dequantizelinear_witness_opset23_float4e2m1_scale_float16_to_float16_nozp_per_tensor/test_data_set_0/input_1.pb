
Bx_scaleJˆ{