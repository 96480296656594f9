ByJД	р	<)V6BO4CTAWOz3{[QQ:2~+oQ"TID^н+'#+сс94%Q!$_@BSS5%+,389ш<HcEOЮч#ь(7:ч
Iy 0V"J7YB@MN
.EDDH/_=*9I	п50лA50],Hxe"iD;JI+xULAAVs:69)л?WIeт20K$I