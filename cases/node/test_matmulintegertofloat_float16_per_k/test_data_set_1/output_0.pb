
BYJ¿Y±\ð^aDX]½]l`ÆV9Z­_n_