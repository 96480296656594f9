
Boutput_0J2‡¹þ