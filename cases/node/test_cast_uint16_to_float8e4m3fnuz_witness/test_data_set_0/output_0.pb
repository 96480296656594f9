
BoutputJ
@H`bbd