Bb_zero_pointJ
AúG.R[mZ 