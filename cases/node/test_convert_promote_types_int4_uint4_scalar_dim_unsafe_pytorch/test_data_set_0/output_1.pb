
Boutput_1J2‡¹þ