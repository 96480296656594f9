
BoutputJ
@DLNNPaamm