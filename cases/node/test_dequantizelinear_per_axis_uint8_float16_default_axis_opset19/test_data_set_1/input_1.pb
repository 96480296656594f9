
Bx_scaleJf.f2Í4