BBJ
[bgO7NdZRI