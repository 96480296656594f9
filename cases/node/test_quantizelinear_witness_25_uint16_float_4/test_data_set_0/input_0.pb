
BxJ¸h°r€ujwºxÎyâzö{