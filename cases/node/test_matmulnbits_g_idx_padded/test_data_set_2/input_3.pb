Bzero_pointsJl
Ù