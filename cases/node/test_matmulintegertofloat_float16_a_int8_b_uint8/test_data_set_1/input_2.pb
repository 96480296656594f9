
Ba_scaleJ€'