Btarget_typeJÈÍ
5O