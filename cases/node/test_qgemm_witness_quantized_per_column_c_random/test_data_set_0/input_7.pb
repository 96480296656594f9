By_scaleJÁ¿
=