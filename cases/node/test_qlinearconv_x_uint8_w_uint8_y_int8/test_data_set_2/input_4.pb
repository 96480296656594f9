Bw_scaleJD
„: