
BinputJ
€`a}ı