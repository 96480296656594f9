
By_scaleJ­*