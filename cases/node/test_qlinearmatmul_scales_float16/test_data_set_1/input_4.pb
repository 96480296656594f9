
Bb_scaleJï(