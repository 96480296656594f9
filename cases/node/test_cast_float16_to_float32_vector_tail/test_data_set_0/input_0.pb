
BinputJ|