Btarget_typeJ
