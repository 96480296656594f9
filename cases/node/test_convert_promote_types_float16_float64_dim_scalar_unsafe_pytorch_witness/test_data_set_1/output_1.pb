
Boutput_1J¼