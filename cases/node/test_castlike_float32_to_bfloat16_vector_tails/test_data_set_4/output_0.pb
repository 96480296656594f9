BoutputJ
ÀÿÀÀÿÀÀÿ