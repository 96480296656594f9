"""float 8 conversions by plain bit arithmetic with no special cases: the building blocks of the fault models of
runtimes that convert float 8 so (TVM 0.27's Cast, measured here on every float 8 encoding and 2,016 float32 values
per target; issue 21). Not a reference: nothing here follows the spec's tables.

What the arithmetic does, for the E4M3 and E5M2 layouts (the FNUZ types are given the layout, and the bias, of their
FN / IEEE namesakes: float8e4m3fnuz 1.0 is encoded 0x38, float8e4m3fn's 1.0):
  encode  float32 -> biased exponent << M + the mantissa rounded half to even, added in integers and kept modulo 256 (a
          large exponent or a rounding carry runs into the sign bit; Inf and NaN take exponent 255 too), the sign or-ed
          in; a negative sum (zeros, values far below the smallest normal) gives +0, so -0 loses its sign, and so
          does a NaN whose mantissa rounds up out of exponent 255 (the sum overflows a signed 32-bit integer)
  decode  every encoding read as a normal number, (-1)**s (1 + m / 2**M) 2**(e - bias): 0x00 is 2**-bias, the
          subnormals gain the implicit 1, Inf and NaN are large numbers
  e8m0    encode: the float32 exponent field plus the carry of rounding its mantissa half to even, modulo 256 (Inf and
          FLT_MAX -> 0xFF, NaN -> 0x00); decode: the field as a float32 exponent field (0x00 -> +0, 0xFF -> +Inf)
"""

from __future__ import annotations

import numpy as np

from generator import dtypes

# exponent bits, mantissa bits, bias of the layout the arithmetic uses for each float 8 type: a FNUZ type takes its
# FN / IEEE namesake's (dtypes holds the facts; the arithmetic's mistake is only which type it asks)
_NAMESAKE = {"float8e4m3fn": "float8e4m3fn", "float8e4m3fnuz": "float8e4m3fn",
             "float8e5m2": "float8e5m2", "float8e5m2fnuz": "float8e5m2"}
LAYOUT = {t: (dtypes.get(n).exponent_bits, dtypes.get(n).mantissa_bits, dtypes.get(n).bias) for t, n in _NAMESAKE.items()}
E8M0 = "float8e8m0"
TYPES = frozenset(LAYOUT) | {E8M0}


def _fields(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.int64)
    return b >> 31, (b >> 23) & 0xFF, b & 0x7FFFFF


def _round_half_even(frac: np.ndarray, shift: int) -> np.ndarray:
    """frac >> shift rounded half to even (may carry into the next bit)."""
    m = frac >> shift
    rest, half = frac & ((1 << shift) - 1), 1 << (shift - 1)
    return m + ((rest > half) | ((rest == half) & (m & 1 == 1)))


def encode(x: np.ndarray, to: str) -> np.ndarray:
    """float32 values -> the bits of float 8 type `to`, by the arithmetic above."""
    sign, exp, frac = _fields(x)
    if to == E8M0:  # the exponent field rounded as a whole: a tie goes to the even field
        return (_round_half_even((exp << 23) | frac, 23) & 0xFF).astype(np.uint8)
    _, mbits, bias = LAYOUT[to]
    r = _round_half_even((exp << 23) | frac, 23 - mbits)  # exponent and mantissa rounded as one integer
    v = r - ((127 - bias) << mbits)
    # a carry out of exponent 255 (a NaN whose mantissa rounds up) overflows the signed 32-bit sum: +0 as well
    return np.where((v < 0) | (r >= 256 << mbits), 0, (sign << 7) | (v & 0xFF)).astype(np.uint8)


def decode(bits: np.ndarray, src: str) -> np.ndarray:
    """The bits of float 8 type `src` -> float32 values, by the arithmetic above."""
    b = np.asarray(bits).astype(np.int64)
    if src == E8M0:
        return (b << 23).astype(np.uint32).view(np.float32)
    ebits, mbits, bias = LAYOUT[src]
    sign, e, m = b >> 7, (b >> mbits) & ((1 << ebits) - 1), b & ((1 << mbits) - 1)
    v = (1.0 + m / 2.0**mbits) * np.ldexp(1.0, (e - bias).astype(np.int32))
    return np.where(sign == 1, -v, v).astype(np.float32)
