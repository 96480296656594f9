
BoutputJ
