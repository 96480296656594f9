By_scaleJâ
N?