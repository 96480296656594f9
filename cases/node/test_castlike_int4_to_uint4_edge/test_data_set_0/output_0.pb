
BoutputJ˜þ2v