Bb_zero_pointJ

\Í%õq4\±R