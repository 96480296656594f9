Bx_scaleJ$q
=