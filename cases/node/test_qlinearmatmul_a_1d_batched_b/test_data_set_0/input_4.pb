Bb_scaleJX~
=