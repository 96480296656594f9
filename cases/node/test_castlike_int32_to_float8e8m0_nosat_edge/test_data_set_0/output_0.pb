
BoutputJ
€‚‚‚ƒ