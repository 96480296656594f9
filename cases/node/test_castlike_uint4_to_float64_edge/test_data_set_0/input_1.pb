Btarget_typeJ0d"†t? ¥P>L³Ö;›“‡y²Ü;Ð­Ï_òõ‘zª˜ædÀPóEM´
(£