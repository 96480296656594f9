BY_scaleJŽ·
>