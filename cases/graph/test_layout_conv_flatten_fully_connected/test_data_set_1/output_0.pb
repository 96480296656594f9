ByJ4–sC_äÊBÎ‹¸CØ”iCŸ
9Cþ<•C¤ØŠCí”C‹#ªBéšaC\È%C<iC1EnC