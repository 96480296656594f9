
BoutputJ
üúşüşşşşıı