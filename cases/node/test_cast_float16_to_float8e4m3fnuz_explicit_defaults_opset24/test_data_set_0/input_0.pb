
BinputJÀ[Á[