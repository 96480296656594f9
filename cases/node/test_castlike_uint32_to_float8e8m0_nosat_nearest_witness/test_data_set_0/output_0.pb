
BoutputJ
ƒ„‚„ÿ—‡ˆ˜