
Btarget_typeJжШ
aќA/А†+6Ъ