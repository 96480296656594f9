BoutputJ0
 