
BinputJ˜ş2v