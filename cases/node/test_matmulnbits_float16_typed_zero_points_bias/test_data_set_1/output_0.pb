
BYJ¦I“HÌÒBPI†¿‡Ë<D