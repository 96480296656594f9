"""float8e8m0 faults: the power of two chosen from log2(x), from the exponent field, or with ties to even."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.reference.cast_targets import e8m0_exponent
from generator.reference.cast_faults.common import _cast, _params
from generator.reference.cast_faults.ranges import _values


# ---------------------------------------------------------------------------------------
# float8e8m0
# ---------------------------------------------------------------------------------------
def _e8m0_kernel(choose):
    """float8e8m0 with the exponent k of each positive finite in-range value chosen by choose(v, mode)."""
    def kernel(x, src, to, saturate, round_mode, opset):
        y = _cast(x, src, to, saturate, round_mode, opset)
        if to.nan_style != dtypes.E8M0 or src.kind == "string":
            return y
        v = _values(x, src)
        ok = np.isfinite(v) & (v >= to.smallest_normal) & (v <= to.finite_max)
        if not ok.any():
            return y
        k = np.clip(choose(v[ok], round_mode, src), -127, 127)
        y = y.copy()
        y[ok] = to.from_bits((k + 127).astype(np.uint8))
        return y
    return kernel


def _log2_choice(v, mode, src):
    """k from log2(x) in float32 (float64 for 64-bit sources), as a vectorized kernel would."""
    ft = np.float64 if src.bits == 64 else np.float32
    with np.errstate(all="ignore"):
        lg = np.log2(v.astype(ft))
    if mode == "up":
        return np.ceil(lg).astype(np.int64)
    if mode == "down":
        return np.floor(lg).astype(np.int64)
    return np.floor(lg + ft(0.5)).astype(np.int64)


def _exponent_up_choice(v, mode, src):
    """up as 'exponent + 1' even for exact powers of two (the mantissa is not looked at)."""
    _, e = np.frexp(v)
    k = e.astype(np.int64) - 1
    return k + 1 if mode == "up" else e8m0_exponent(v, mode)


def _ties_even_choice(v, mode, src):
    """nearest with ties (1.5 * 2**k) to the even exponent instead of up."""
    k = e8m0_exponent(v, mode)
    if mode != "nearest":
        return k
    m, e = np.frexp(v)
    tie = (2 * m) == 1.5
    base = e.astype(np.int64) - 1
    return np.where(tie, np.where(base % 2 == 0, base, base + 1), k)


def _e8m0(p) -> bool:
    return _params(p)[1].nan_style == dtypes.E8M0 and p["from"] != "string"
