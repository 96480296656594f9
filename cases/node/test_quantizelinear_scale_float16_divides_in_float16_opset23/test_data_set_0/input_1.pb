
By_scaleJÍ4