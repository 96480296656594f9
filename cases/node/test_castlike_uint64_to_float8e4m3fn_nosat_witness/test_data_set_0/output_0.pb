
BoutputJ
~~XZZ\yy