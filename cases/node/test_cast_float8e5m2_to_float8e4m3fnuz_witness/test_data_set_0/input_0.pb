
BinputJ
|ü\]}ı