
Btarget_typeJŠH