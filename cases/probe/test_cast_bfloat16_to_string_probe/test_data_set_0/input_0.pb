BinputJ
€€ÿÀÀÿÿÿ