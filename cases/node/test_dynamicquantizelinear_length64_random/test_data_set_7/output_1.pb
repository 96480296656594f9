By_scaleJ|V@
