
Bb_scaleJý-