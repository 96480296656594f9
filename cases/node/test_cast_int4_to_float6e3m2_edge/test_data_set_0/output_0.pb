BoutputJ
øMË00DY