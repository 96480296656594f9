
Ba_scaleJ€-