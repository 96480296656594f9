
BoutputJ
@Hþüþüÿÿ