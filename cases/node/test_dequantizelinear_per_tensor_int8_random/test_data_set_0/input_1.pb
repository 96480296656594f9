Bx_scaleJî
È?