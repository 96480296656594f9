By_scaleJ
kë7