
Btarget_typeJƮ