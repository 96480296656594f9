
Btarget_typeJчи)е {Qп▐а0P