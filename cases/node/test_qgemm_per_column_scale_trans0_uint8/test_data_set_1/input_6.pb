By_scaleJà
­?