ABBJA88øo¿Aë°Žl=x¹0å©ma‰p8{€›ÙÅC’7S™qkzvµ¡OÜêYEÊ€Nö„
VmÁ§Uø