
BYJBhBhBh