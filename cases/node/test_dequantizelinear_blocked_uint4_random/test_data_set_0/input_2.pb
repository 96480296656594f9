Bx_zero_pointJÁò
