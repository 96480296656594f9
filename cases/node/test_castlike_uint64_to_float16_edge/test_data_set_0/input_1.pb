
Btarget_typeJWó™'}÷D‰Â