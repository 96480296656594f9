
BinputJ

~