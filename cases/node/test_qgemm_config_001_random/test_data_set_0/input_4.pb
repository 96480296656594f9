Bb_scaleJ.
r;