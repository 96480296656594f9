Bz_scaleJò(
=