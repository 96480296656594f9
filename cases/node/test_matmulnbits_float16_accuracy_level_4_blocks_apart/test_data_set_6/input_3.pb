
BbiasJюц@Aюб