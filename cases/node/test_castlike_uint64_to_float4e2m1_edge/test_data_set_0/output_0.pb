BoutputJ
 Tfwwwwwww