BxJP†òfúúŒXll#G 
Qù2º‰ÚMæ¹TK7ðæÔ`ôU‰Üø¡tOÁTÄZ?–WVûi Y¾¦Û¾T²+ãHÑr­ B?Ä¨;xò¯ÖJhM5