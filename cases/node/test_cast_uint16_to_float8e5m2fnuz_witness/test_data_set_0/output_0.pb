
BoutputJ
LNNPaamm