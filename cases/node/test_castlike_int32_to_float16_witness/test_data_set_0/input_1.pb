
Btarget_typeJª¬