
BoutputJ
HJJL{{]]ii