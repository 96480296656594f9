Ba_scaleJ
3=