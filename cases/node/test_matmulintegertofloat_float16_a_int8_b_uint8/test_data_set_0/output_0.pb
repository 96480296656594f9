
BYJØfT6PØM]lX„U_¦ÜŸMŒTŸÙ