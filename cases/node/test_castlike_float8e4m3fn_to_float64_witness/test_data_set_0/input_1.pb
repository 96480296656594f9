Btarget_typeJ0fvC!ZqнHКU$ѓырЇ
г°°|µмЋђЬX3—і„ЈLќ≠wS/аС(#Вс,iк