Btarget_typeJ+߿
2=