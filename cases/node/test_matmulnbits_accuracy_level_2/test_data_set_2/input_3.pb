Bzero_pointsJ_ãN
