
BoutputJ
üúşüşş~~ıı