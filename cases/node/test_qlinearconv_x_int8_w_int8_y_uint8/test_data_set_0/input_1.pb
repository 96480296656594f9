Bx_scaleJK0
<