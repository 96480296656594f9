Bb_scaleJ
ò«=