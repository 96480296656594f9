Btarget_typeJ,Kχο=?Π¥ΌΊθEϋ|YW€=B
Ά*