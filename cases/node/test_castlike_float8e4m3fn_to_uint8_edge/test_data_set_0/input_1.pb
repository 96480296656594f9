Btarget_typeJ
tşJ