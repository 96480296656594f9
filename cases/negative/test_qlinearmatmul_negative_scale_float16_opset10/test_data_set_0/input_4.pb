
Bb_scaleJ\#