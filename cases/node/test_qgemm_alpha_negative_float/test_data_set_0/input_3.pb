BBJT^jяAAЬБ1	w
┐
лн█sоў