By_scaleJ
â@<