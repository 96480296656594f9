
BbiasJÒSXå[D]