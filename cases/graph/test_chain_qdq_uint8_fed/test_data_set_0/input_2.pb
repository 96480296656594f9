B
zero_pointJ€