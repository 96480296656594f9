Ba_scaleJ
ç™=