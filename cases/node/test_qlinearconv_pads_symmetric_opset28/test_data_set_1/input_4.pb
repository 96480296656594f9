Bw_scaleJ
@™;