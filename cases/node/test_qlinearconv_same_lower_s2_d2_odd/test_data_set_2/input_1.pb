Bx_scaleJ
6V=