Bx_scaleJ
²F;