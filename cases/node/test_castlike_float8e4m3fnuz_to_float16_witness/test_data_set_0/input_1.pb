
Btarget_typeJç†