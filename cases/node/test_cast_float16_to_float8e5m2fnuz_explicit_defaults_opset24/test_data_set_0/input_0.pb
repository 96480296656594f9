
BinputJ€{{