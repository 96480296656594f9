
BA_scaleJ†$