BYJ áÐ–AeÔ}À‘A‰BäoÆBòÂ˜A,:“À
yB0W–B€ú–AïSÁXÀAãÕ?B‡»A-Ç^Â¶ÔXB:C·0¬AóH‰Â“ÉÎA<(àB<ð¥A‡1”ÂA;€AjnªBC‡AÃåÀYH‡B†`¤B¢©¦A’êÀt1wB®0²B|‰ÇA4wÊÁžÜsBTà³BôgžAåÀÔÁV¿—B@¨—BÓcžAw®Á?9–B`1¾Bhç˜Aç÷´Á bgB~ðŽBè»’AŸ†Â%q‡BúÙËB§Â§Ahƒ>Â,€Bÿ‹×BL¦ÄA¿ªÂÐ#BJ}ÓBÀ‹¹A™æÕÁWŽBZÃBbè‰AÚÎ½Àv¹cB5û BMY¬A8öw¾W©5BŒ
¸B