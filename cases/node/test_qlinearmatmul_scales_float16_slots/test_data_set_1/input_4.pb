
Bb_scaleJú