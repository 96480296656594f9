
Binput_1Jÿ{