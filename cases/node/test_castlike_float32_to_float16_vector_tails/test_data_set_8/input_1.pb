
Btarget_typeJ¦gÌ¥+[{Ààå—