
BoutputJ
€‚‚‚ƒ††