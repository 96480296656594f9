
Ba_scaleJ?