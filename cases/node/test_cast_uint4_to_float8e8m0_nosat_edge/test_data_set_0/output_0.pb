
BoutputJ
€‚‚‚ƒƒƒ