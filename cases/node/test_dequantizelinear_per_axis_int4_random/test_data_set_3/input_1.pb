	Bx_scaleJ$á?1∫EC@S
@?Ÿ∂>¥ﬂÎ@¥Ç+Aå
?Åπ∑?ÎljA