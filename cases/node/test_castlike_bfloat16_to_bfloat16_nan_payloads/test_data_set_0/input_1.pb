Btarget_typeJ%#
/úrİºÛ]N