
By_scaleJÇ