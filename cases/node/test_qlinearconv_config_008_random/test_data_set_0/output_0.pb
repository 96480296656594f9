ByJo
hmk