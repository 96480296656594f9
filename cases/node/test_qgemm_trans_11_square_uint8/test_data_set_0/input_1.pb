Ba_scaleJ4
ã<