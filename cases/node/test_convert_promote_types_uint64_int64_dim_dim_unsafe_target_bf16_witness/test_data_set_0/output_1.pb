Boutput_1J
€?LÌZÚ