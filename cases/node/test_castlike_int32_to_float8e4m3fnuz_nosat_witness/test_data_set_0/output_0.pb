
BoutputJ
€€ÿÿþü€þ€€