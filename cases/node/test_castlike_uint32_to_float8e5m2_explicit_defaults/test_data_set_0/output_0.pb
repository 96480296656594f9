
BoutputJ
{{{{{{{{{{