By_scaleJÏ
L=