By_scaleJ
€9