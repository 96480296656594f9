
BbiasJºØàF×¼Ó