
BYJ`1XŒaIb„_Yía‚a®]TW_Â\