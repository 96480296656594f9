
BoutputJ
LPNRaa