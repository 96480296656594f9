Btarget_typeJ
