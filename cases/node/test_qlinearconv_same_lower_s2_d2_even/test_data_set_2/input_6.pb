By_scaleJä
Ã=