
Ba_scaleJû