BYJ
rzŽpn~z‚y