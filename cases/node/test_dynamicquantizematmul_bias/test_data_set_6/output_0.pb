BYJ0a’B
©VÃ´|³ÂT‚³Ba’B
©VÃ´|³ÂT‚³Ba’B
©VÃ´|³ÂT‚³B