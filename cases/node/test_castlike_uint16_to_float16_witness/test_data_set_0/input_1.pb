
Btarget_typeJז	מעס³	mQ 