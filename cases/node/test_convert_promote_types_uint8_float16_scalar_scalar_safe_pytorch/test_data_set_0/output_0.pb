
Boutput_0Jø[