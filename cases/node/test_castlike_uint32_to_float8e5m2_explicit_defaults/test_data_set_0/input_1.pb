Btarget_typeJ£•à
