
BinputJpş°şPşşAşBşÑÒQşoş