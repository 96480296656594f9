
By_scaleJÕ6