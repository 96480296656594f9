BA_scaleJ
÷(=