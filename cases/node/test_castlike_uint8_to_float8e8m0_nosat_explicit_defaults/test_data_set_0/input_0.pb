BinputJ
şÿ