BxJâ¬
¼Ì@)g’sd