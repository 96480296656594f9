
Boutput_1Jÿ{