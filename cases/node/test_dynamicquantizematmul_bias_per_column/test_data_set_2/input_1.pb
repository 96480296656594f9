BBJÙ·ó²Np¦"
Ÿ
-IZ£tÿI