
BoutputJ
