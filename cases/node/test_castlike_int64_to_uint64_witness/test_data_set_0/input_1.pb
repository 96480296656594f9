Btarget_typeJ0S\Ò{ùÓÕ¼ºz˜(5B´ú(b®
HÓƒ€Xãas7*Z×÷oó¼LJ’[›ù*