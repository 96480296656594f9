
Btarget_typeJ‹Q