By_scaleJÍý
?