
BinputJ||