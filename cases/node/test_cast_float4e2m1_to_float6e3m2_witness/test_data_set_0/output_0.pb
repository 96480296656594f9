BoutputJ
