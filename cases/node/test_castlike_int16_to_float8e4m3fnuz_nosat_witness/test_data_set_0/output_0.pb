
BoutputJ
þü€þ€€€€