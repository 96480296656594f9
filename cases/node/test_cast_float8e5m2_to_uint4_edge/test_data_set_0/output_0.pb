
BoutputJ2ŽÊ