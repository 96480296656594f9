
Boutput_1J€K