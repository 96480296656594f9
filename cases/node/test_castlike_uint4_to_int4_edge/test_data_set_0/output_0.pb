
BoutputJ2v˜þ