BA_scaleJûg
>