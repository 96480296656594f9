Btarget_typeJ0­r¡H+1³ÁêR$…‡hD„6‚<!`œßI#åŒò´4Øo
×Àá€Is9LR‡