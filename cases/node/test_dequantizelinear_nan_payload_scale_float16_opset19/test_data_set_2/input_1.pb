
Bx_scaleJ~