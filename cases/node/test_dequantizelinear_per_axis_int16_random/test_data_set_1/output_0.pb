	ByJl¿K¡Æ„ÿÈqy‰FØiÃ0É°IÉ%ÅA’&E½‘CKæ“€IÏ¢YÇ¦›ÁÇïLE²†Ã7¨IÎø'Ä]°E½„jÊOl]G
=˜Ç|GœÇõd©F^xB©É«J¦U}ÅWvœDt+Êz®?H