Bx_scaleJ	
=