Bw_scaleJC
ž=