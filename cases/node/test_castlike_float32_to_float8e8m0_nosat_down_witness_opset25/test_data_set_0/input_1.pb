Btarget_typeJ
=i¨\