Bx_scaleJ
ô<