
BoutputJ
HLJN{{]]ii