
BinputJ2t˜ş