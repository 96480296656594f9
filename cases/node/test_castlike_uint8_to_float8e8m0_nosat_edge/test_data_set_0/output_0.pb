
BoutputJ
€‚‚‚ƒ‡‡