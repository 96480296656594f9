
Btarget_typeJκόΕήμ‘―-δά¨#