By_scaleJчу
<