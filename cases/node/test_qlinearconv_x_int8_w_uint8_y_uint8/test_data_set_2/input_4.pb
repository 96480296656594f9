Bw_scaleJоп
;