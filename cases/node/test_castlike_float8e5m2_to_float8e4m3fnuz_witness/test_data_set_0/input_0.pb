
BinputJ
|ü\]}ı