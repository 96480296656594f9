BxJlήbJj·dCΩI3Wθ6ςp³’α»ν0/”ύ<
©\e[Ί―4q§tΌ~δύρ²»YF4{΄ΩtβV`,wωW{g½/“e-©«SyqaoJ"2}IQÒΘ>\ό1§1pμ-‡KrfΛa/r