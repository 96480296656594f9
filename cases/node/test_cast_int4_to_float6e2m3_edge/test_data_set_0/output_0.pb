BoutputJ
¿Ó0
 …q