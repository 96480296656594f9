
By_scaleJ