BC_scaleJ0Î
<