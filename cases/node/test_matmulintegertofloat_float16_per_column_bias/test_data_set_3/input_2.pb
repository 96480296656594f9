
Ba_scaleJ€&