Bw_zero_pointJ
zíŠ2