	Bx_zero_pointJÓ_ck(‹®‚ý}KÔ
ú¸˜