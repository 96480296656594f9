BxJènC<å&¥
:÷b