
BYJ$°²´=¾¼jBŒ9XA°²´=¾¼jBŒ9XA°²´=¾¼jBŒ9XA