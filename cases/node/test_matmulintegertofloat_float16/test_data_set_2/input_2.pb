
Ba_scaleJ€%