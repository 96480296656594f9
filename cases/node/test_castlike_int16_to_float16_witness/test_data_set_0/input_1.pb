
Btarget_typeJEi“ÎÍ—Zá