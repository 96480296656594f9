Bx_scaleJ€h
=