
Ba_scaleJ 