	ByJl╥Э╢@	╓B╗[ B▄,wю═S²©╤╤vф╔г┤©Qa─GgЧ╬Cu,·?Ж б▓9Br┐ю╢^╬L2Fp╝щ©╬оF·D┘DCW*@h@бUЗ'C}оя?Чi?÷&.ф?dy©╪:G╤A
D