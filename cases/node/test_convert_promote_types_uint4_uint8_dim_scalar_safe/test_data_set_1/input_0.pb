
Binput_0J2‡¹ş