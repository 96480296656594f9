
BoutputJ
~~üúşüşşıı