
Boutput_1JğW