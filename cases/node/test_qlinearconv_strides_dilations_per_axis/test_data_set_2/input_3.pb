BwJl FMûW!œÀÓÒ¬b#ðxCSawŸyD‘xo_Oî[È#YÈoççi\ý/‰ú¨¨0zwd/£f«ûNiƒLÜ.—ÏDõYµ˜
–rIS˜ïFÃ¢ãxÏŸ³òäE½Œ¡Î –4óñã