
Boutput_1Jø[