
Bb_scaleJô