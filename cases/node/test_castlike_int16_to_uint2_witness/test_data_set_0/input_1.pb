Btarget_typeJ
