
BoutputJ
@H`bbd€€