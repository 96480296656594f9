
BYJ„>yH\FüAŒ?ICGÄB