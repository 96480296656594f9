BYJ`ŠÐlÂ[ÌtBÆ@¤BËC8BqéTÂòPGBã¨BEAB‚ëMÂAÅbB…æ©Bîe6BCÊ>ÂÊ—pBÚ™®BQ–5B;ü@ÂØù„Br/¦B–1BïXÂ‹÷”Bf´§Bh
5B