B
zero_pointJý