Bw_zero_pointJ
