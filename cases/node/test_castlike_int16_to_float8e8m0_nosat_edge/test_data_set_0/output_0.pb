
BoutputJ
€‚‚‚ƒ