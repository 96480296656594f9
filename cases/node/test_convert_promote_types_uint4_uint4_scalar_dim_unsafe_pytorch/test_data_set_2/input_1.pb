
Binput_1J2‡¹ş