Bb_zero_pointJ
αXινΪT
‡Κ