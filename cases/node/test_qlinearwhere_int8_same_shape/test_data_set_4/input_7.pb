Bz_scaleJ¤
=