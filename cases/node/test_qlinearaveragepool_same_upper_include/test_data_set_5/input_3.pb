By_scaleJ1
v<