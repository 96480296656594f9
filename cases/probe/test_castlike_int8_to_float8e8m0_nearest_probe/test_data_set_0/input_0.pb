
BinputJ
€öùúûüışÿ