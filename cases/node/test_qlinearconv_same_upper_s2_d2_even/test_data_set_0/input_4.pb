Bw_scaleJ
~r=