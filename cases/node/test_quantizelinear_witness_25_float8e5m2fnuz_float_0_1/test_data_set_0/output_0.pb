ByJ
@DBDA¸¼HJÆ