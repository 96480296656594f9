
Bb_scaleJ€/