
BbiasJKUÙ×’È