#BoutputJÿÿÿÿÿÿîÍ
Bevwwwww