
Boutput_0J¼