BBJ
Trёрокз,lN