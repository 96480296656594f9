
Btarget_typeJ¸<+ŠÀïrZ„Q