
Boutput_1J<