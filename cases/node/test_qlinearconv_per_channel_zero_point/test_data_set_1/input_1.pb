Bx_scaleJ
]È;