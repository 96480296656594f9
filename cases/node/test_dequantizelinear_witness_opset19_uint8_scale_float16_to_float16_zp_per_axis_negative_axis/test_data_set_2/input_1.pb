
Bx_scaleJF6TDÔ-