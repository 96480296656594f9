
Btarget_typeJYåŠvBÙerT9ÈÍ