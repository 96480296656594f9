Btarget_typeJË
