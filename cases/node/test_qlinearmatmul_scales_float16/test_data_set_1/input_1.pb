
Ba_scaleJö(