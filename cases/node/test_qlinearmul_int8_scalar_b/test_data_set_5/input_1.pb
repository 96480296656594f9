BA_scaleJœe
>