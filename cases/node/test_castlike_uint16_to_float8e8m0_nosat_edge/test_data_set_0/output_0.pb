
BoutputJ
€‚‚‚ƒ