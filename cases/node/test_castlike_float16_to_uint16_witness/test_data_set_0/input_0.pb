
BinputJ88