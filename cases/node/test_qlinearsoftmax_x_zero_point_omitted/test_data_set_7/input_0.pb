BXJZfhSжf╬(╔Йh░╦{мнu▓
ёv