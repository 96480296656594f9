
BinputJ!Ce§ş