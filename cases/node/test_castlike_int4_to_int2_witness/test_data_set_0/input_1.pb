Btarget_typeJÀ
