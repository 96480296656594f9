
BbiasJTาู้ำนV