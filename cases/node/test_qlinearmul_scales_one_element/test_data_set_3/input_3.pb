BBJ
…h†psshwlq