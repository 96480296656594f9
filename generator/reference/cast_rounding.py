"""Cast's rounding primitives: round to nearest even at a type's precision, in float64 or exactly (Fraction), and
float8e8m0's power of two under each round_mode."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType


def round_to_precision(v: np.ndarray, to: DType) -> np.ndarray:
    """RNE of finite float64 values to `to`'s mantissa width, subnormals included, exponent
    unbounded above (so the caller compares the rounded value with FLT_MAX). [Cast: "[x] means
    the value rounded to the target mantissa width"; else RNE]"""
    v = np.asarray(v, dtype=np.float64)
    if to.name == "double":
        return v.copy()
    a = np.abs(v)
    with np.errstate(all="ignore"):
        _, e = np.frexp(a)
        exp = np.maximum(e.astype(np.int64) - 1, to.min_exponent)
        q = np.ldexp(1.0, (exp - to.mantissa_bits).astype(np.int32))
        r = np.round(a / q) * q  # a / q is exact: a power-of-two scaling below 2**(m+2)
    return np.copysign(r, v)


def round_fraction(q: Fraction, to: DType) -> Fraction:
    """Exact RNE of a rational to `to`'s mantissa width (exponent unbounded above)."""
    if q == 0:
        return Fraction(0)
    a = abs(q)
    exp = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exp > a:
        exp -= 1
    exp = max(exp, to.min_exponent)
    quantum = Fraction(2) ** (exp - to.mantissa_bits)
    n = a / quantum
    fl = n.numerator // n.denominator
    rem = n - fl
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
        fl += 1
    r = fl * quantum
    return r if q > 0 else -r


def _e8m0_exponent(q: Fraction, mode: str) -> int:
    """Exponent k of the power of two that `mode` picks for a positive rational q."""
    k = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** k > q:
        k -= 1
    f = q / Fraction(2) ** k  # in [1, 2)
    if mode == "down" or f == 1:
        return k
    if mode == "up":
        return k + 1
    return k + 1 if f >= Fraction(3, 2) else k  # nearest, ties up


def representative(q: Fraction, to: DType, round_mode: str = "up") -> float:
    """A float64 that the vectorized cast to `to` treats exactly as the exact rational q.

    Used for values float64 cannot hold: big integers and decimal strings."""
    if to.kind in ("int", "uint", "bool", "string"):
        raise ValueError("representative() is for float targets")
    if to.nan_style == dtypes.E8M0:
        if q <= 0:
            return float(q.numerator and -1.0)  # sign is all that matters: negative -> undefined; 0
        k = max(min(_e8m0_exponent(q, "down"), 1000), -1000)
        f = q / Fraction(2) ** _e8m0_exponent(q, "down")
        # 1, 1.25, 1.5, 1.75 keep every round_mode decision of f in [1, 2) unchanged
        g = 1.0 if f == 1 else 1.25 if f < Fraction(3, 2) else 1.5 if f == Fraction(3, 2) else 1.75
        return g * 2.0**k
    r = round_fraction(q, to)
    try:
        out = float(r)
    except OverflowError:
        out = float("inf")
    if out == 0 and q < 0:
        out = -0.0  # a negative value that rounds to zero is -0
    if abs(out) == float("inf") or (to.name != "double" and abs(out) > to.finite_max * 4):
        # beyond float64, or far beyond the target: any value above FLT_MAX decides the same way,
        # except that IEEE targets map overflow to Inf like an Inf input.
        big = float("inf") if to.nan_style == dtypes.IEEE else np.finfo(np.float64).max
        return big if q > 0 else -big
    return out
