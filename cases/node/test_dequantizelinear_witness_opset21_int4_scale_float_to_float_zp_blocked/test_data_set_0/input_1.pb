Bx_scaleJирґ@Ј«ўA[w|AщL
B