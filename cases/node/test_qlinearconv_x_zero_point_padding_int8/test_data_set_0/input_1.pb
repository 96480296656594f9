Bx_scaleJà
Y;