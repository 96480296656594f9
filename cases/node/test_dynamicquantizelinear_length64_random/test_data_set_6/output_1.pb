By_scaleJ?W
