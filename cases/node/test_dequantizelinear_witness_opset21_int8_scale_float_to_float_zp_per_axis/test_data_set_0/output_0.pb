ByJlI©…AºQžÄéedÅ¥ÎAÃ5‰ÄÝ»SÄ?èiB6ÒAÄÁ±UÅ‡VdBÜTÄ(0=Å5UñAÜTÄ.æÅ ‘:BqÙXÄK.ïÄ‡VdBãßÄPäKÃ*ðBž¥ÝÄÏ¶TÅ‘€.Bf+
ÃK.oÅ