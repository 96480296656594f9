Bx_zero_pointJY
y