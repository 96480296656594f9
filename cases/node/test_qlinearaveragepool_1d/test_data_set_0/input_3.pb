By_scaleJԇ
=