
BinputJ

şÿ