Bb_scaleJR=“;í•÷=Lš¤;Êa
; ¶ ;