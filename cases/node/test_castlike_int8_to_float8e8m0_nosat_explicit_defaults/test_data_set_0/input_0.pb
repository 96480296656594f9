BinputJ
~