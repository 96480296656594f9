Bx_scaleJÅ^
>