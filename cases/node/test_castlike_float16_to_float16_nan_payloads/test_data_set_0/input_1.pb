
Btarget_typeJ DYÕîğ…BÁŸW