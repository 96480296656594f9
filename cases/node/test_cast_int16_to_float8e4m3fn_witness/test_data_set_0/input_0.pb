
BinputJÑÒpş°şPşşAşBşQşoş