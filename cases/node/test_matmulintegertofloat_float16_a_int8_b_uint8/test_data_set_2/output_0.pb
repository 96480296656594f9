
BYJÈSÈSÈSÈSÈSÈSÈSÈSÈSÈSÈSÈS