
Boutput_0JğW