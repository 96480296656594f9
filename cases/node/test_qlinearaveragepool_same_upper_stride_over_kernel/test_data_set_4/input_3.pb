By_scaleJ4
=