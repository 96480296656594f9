
BbiasJä‘(Uoÿ·Y