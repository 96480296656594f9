Bb_zero_pointJ½
©„¦