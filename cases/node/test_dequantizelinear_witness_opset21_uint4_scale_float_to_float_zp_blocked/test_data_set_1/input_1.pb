Bx_scaleJ,≈?=Ê‘,A¥h@=
h8?