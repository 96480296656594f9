Bb_scaleJÒ
­=