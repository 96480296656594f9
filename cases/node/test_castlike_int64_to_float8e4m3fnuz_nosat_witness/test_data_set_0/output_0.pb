
BoutputJ
ÿÿþü€þ€€€€