
BoutputJ
{{iiHJJL]]