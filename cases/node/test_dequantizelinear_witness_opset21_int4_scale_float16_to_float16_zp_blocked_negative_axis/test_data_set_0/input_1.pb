
Bx_scaleJ~5]P©4“L