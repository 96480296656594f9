
BinputJ
`a€}ı