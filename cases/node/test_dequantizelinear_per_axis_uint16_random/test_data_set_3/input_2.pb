	Bx_zero_pointJ¨9‰
ÛÓŸV¦ã>ún[Ü