BC_zero_pointJ
