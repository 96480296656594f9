BB_scaleJ
É=