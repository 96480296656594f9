
Btarget_typeJæ¹O.ºïğWG]¨