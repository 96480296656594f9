
BinputJ
סערש