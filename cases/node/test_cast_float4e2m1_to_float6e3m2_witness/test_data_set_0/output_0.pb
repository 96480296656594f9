BoutputJ
