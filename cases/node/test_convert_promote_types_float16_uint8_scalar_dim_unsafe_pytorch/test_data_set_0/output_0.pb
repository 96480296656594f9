
Boutput_0Jÿ{