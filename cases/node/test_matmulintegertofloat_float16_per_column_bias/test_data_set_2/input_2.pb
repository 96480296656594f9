
Ba_scaleJ€(