
BYJ›P!S)OçQàQ­S