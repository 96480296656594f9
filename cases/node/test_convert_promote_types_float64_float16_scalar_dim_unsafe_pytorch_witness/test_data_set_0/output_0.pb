
Boutput_0J<