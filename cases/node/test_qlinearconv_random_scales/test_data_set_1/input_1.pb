Bx_scaleJ
§Ž=