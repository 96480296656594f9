BZJ
×LL×××L××L