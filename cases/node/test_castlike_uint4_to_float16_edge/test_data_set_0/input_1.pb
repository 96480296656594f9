
Btarget_typeJ|Á