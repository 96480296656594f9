BinputJê&
