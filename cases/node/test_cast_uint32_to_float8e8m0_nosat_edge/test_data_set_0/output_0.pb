
BoutputJ
€‚‚‚ƒŸŸ