Bx_scaleJ™
>