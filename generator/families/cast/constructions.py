"""Where a wrong Cast to a target shows: the target's rounding midpoints and overflow boundary, each with the
neighbours a wider intermediate type rounds onto it, the integers and decimal texts at those points. Both the
witness search (generator/witness/cast.py, its constructions) and the hunt (hunt_strategy.py, its pools) draw on
them."""

from __future__ import annotations

import math

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.hunting import ulp


def midpoints(to: DType) -> list[float]:
    """Positive midpoints between consecutive values of a rounding target, and the overflow midpoint; for a
    wide target, the midpoints of sampled binades."""
    if to.bits <= 16:
        with np.errstate(invalid="ignore"):
            vals = to.all_values().astype(np.float64)
        vals = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
        mids = list((vals[:-1] + vals[1:]) / 2)
    else:
        mids = []
        top = math.frexp(to.finite_max)[1] - 1
        exps = sorted({to.min_exponent - to.mantissa_bits, to.min_exponent - 1, to.min_exponent, to.min_exponent + 1,
                       -1, 0, 1, 2, 23, 24, 25, 31, 52, 53, 54, 62, 63, 64, top - 1, top} & set(range(
                           to.min_exponent - to.mantissa_bits, top + 1)))
        for e in exps:
            q = math.ldexp(1.0, max(e, to.min_exponent) - to.mantissa_bits)
            base = math.ldexp(1.0, e)
            for k in (0, 1, 2, 3, 5, (1 << to.mantissa_bits) - 1, (1 << to.mantissa_bits) - 2):
                mids.append(base + k * q + q / 2)
    ulp_top = ulp(to.finite_max, to)
    mids.append(to.finite_max + ulp_top / 2)
    return [m for m in mids if math.isfinite(m)]


def float_candidates(to: DType) -> list[float]:
    out = []
    if not to.is_float:
        return out
    if to.nan_style == dtypes.E8M0:
        for k in range(-128, 129):
            p = math.ldexp(1.0, k)
            for f in (1.0, 1.5, math.sqrt(2)):
                for d in (0.0, 2.0**-10, -2.0**-10, 2.0**-23, -2.0**-24, 2.0**-52, -2.0**-53, 2.0**-7, -2.0**-8):
                    out.append(p * f * (1 + d))
        return out
    for m in midpoints(to):
        out.append(m)
        for t in ("float16", "bfloat16", "float", "double"):
            u = ulp(m, dtypes.get(t))
            out += [m + u / 4, m - u / 4, m + u / 2, m - u / 2]
        out += [math.nextafter(m, math.inf), math.nextafter(m, -math.inf)]
    return out


def int_candidates(to: DType) -> list[int]:
    out = []
    if to.nan_style == dtypes.E8M0:
        for k in range(0, 65):
            for base in (1 << k, 3 << max(k - 1, 0)):
                out += [base - 1, base, base + 1]
        return out
    if not rounds(to):
        return out
    p = to.mantissa_bits + 1
    for e in range(p, 65):
        q = 1 << (e - to.mantissa_bits)  # spacing of `to` in [2**e, 2**(e+1))
        if q < 2:
            continue
        for k in (0, 1, 2, 3, (1 << to.mantissa_bits) - 2, (1 << to.mantissa_bits) - 1):
            m = (1 << e) + k * q + q // 2
            out.append(m)
            for t in ("float16", "bfloat16", "float", "double"):
                tt = dtypes.get(t)
                d = 1 << max(e - tt.mantissa_bits - 2, 0)
                out += [m + d, m - d]
            out += [m + 1, m - 1]
    return out


def rounds(to: DType) -> bool:
    return to.is_float and to.nan_style != dtypes.E8M0


def string_candidates() -> list[str]:
    out = ["0.1", "1.1", "0.3", "-0.1", "1e-320", "3.4028235677973366e38", "16777217.5"]
    for e in (24, 25, 31, 32, 53, 54, 62, 63, 64):
        for d in (-3, -1, 1, 3):
            out += [str((1 << e) + d), str(-((1 << e) + d))]
    return out
