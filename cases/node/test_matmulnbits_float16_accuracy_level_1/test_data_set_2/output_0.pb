
BYJV]V]V]