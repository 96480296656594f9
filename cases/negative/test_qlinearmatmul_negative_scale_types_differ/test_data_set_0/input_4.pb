
Bb_scaleJÀ.