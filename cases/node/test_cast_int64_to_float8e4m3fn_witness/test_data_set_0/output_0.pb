
BoutputJ
şşüúşüşşıı