Btarget_typeJ0Iy»*¶a uJ
¤í}¥»DòtåÉÖ^@·k'xÜÔ’¡¾˜Æ,9j)/PıÔ/