ByJ
@HDHB°¸PTÌ