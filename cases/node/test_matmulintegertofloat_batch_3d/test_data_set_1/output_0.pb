BYJ`àdA¼,»@aYA&¤BAö
¿A0fA%Ê™At²Aý1#AØÅ@Ö¢8A‹^HA7?’AdšÖA†Ó©Ag¯rA„ü$AÊQœAsËoA›`ê@H´^AùH’AÓ&*AVo%A