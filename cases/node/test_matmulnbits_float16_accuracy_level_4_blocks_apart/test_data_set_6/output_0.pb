
BYJ=ÑEYÁ7rF;Á