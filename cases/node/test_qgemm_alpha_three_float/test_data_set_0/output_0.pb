BYJ<PB"ïB
\ÂAÙò0@e6eBQ­ŠBr+„B]¨I¿&HMBO¼¸BJ¯BWæPB ÚA`ÖaBWø«B