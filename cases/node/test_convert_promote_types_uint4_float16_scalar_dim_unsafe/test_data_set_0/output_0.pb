
Boutput_0J€K