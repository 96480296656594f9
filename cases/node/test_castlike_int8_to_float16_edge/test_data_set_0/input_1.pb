
Btarget_typeJ”X¢yfä∫*©