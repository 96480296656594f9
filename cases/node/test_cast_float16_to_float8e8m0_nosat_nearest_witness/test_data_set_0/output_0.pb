
BoutputJ
kljlghÿÿop