
BoutputJ
{{HLJN]]ii