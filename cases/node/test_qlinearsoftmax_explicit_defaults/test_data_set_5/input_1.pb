BX_scaleJ	ö
=