BB_scaleJ7$
<