
BYJä‘(Uoÿ·Yä‘(Uoÿ·Yä‘(Uoÿ·Y