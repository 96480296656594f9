BoutputJÿÿÿÿÿîÍ
Bevwwww