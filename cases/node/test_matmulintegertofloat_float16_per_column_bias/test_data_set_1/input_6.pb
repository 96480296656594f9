
BbiasJDYDU…S…Û