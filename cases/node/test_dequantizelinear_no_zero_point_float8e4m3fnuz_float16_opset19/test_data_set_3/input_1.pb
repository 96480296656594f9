
Bx_scaleJÐc