BYJ0ºifB<`ºAô‹
B)hÈ¡∑gB/‘∆A'>B5V‚¡9ïeBAb∫AÑæBÎ¡