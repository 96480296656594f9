BX1_scaleJÖ
_=