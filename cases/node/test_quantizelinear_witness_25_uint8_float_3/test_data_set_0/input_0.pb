
BxJÍ°ZGJMýO;Q»RåS©T