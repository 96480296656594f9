BCJ,hV
F#žíç#Vmìæ