Btarget_typeJ
æëpm