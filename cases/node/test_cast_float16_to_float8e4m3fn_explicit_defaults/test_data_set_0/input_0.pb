
BinputJA_B_