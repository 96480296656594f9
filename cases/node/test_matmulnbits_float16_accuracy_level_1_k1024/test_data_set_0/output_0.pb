
BYJaSB