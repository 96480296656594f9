Btarget_typeJS¨Nå
