	ByJl]”€É¿
—Ånù4JÊßÑIMƒBIå	üI4æJ¢Ã)JÓßJ¢v—IýÕ>Jp$ÀIÕ)ÀI)ç«É‹ †ÉÎt2J9+ÆÉîZNI‹¢J¸ÂÉ,XåIËƒçIRÙXÉçV±ÆRuúÈ¾Á[I©"J