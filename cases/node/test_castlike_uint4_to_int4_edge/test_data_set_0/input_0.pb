
BinputJ2v˜ş