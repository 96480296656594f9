
Ba_scaleJ€.