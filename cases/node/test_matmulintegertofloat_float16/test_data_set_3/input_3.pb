
Bb_scaleJ€.