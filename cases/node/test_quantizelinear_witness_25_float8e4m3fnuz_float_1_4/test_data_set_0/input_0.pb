
BxJÍÇÄZ¼Í Í3M:M>€H