
BYJ-?9AŠ>DA-?9AŠ>DA