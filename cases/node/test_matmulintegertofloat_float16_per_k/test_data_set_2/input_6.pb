
BbiasJŒTU8RÉÐ