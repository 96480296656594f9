
Bx_scaleJþ*œ'0:—/