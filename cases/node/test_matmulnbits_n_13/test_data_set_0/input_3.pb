Bzero_pointsJæmöd;ki
HTÄ