"""Rounding faults: double rounding through a wider intermediate type, and other tie rules (or truncation) in place
of round-to-nearest-even."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import Fault, same_elements
from generator.reference.cast_faults.common import (_cast, _holds_all, _is_rounding_float, _node, _outcome, _params,
                                                    _wider)


# ---------------------------------------------------------------------------------------
# double rounding
# ---------------------------------------------------------------------------------------
def _via(mid: str):
    t = dtypes.get(mid)

    def kernel(x, src, to, saturate, round_mode, opset):
        if src.kind == "string" or to.kind == "string" or not to.is_float or src.name == mid or to.name == mid:
            return _cast(x, src, to, saturate, round_mode, opset)
        return _cast(_cast(x, src, t, True, "nearest", opset), t, to, saturate, round_mode, opset)

    def applies(p):
        src, to, *_ = _params(p)
        return src.kind not in ("string", "bool") and to.is_float and src.name != mid and _wider(t, to)

    def equivalent(p):
        src, to, saturate, round_mode, opset = _params(p)
        if _holds_all(t, src):
            return f"every {src.name} value is exact in {mid}: the first rounding changes nothing"
        if src.is_integer and _is_rounding_float(to):
            threshold = to.finite_max + _top_ulp(to) / 2  # beyond it the reference overflows
            if 2.0 ** (t.mantissa_bits + 1) > threshold and (
                    max(-src.int_min, src.int_max) <= t.finite_max or _inf_like_overflow(to, saturate, opset)):
                return (f"every {src.name} value below {to.name}'s overflow threshold is exact in {mid}; every value "
                        f"above it overflows either way")
        return None

    return Fault(f"cast.via_{mid}", f"rounds to {mid} first, then to the target (double rounding)",
                 _node(kernel), seen_in=_VIA_SEEN.get(mid, ""), equivalent=equivalent, applies=applies)


_VIA_SEEN = {
    "float": "onnxruntime 1.31 / 1.32.0 (double -> float8 / float4 / bfloat16 through float32; integer -> bfloat16 "
             "through float32), onnx-reference 1.23.2, OpenVINO 2026.4 (through float32): measured here",
    "float16": "OpenVINO 2026.4 (float8 through f16); onnxruntime 1.32.0 and onnx-reference 1.23.2 items consistent "
               "with it (baseline of issue 21, measured here)",
    "bfloat16": "onnxruntime 1.32.0 (50 failing items) and onnx-reference 1.23.2 (38) consistent with it, most of them "
                "with another rounding fault too (baseline of issue 21, measured here)",
    "double": "onnxruntime 1.32.0 (10 failing items) and onnx-reference 1.23.2 (5) consistent with it (baseline of "
              "issue 21, measured here); rounding through double is the usual path of a generic Cast kernel",
}


def _top_ulp(t: DType) -> float:
    return 2.0 ** (math.frexp(t.finite_max)[1] - 1 - t.mantissa_bits)


def _inf_like_overflow(to: DType, saturate: bool, opset: int) -> bool:
    """Does an infinite input give what a finite overflow gives (both signs)?"""
    big = to.finite_max * 4 if math.isfinite(to.finite_max * 4) else math.inf
    x = np.array([math.inf, -math.inf, big, -big])
    y = _cast(x, dtypes.get("double"), to, saturate, "up", opset)
    return bool(same_elements(y[:2], y[2:], to).all())


# ---------------------------------------------------------------------------------------
# tie rules
# ---------------------------------------------------------------------------------------
def _round_magnitude(n: np.ndarray, rule: str, negative: np.ndarray) -> np.ndarray:
    """n >= 0 in units of the target's quantum, rounded by `rule` instead of to nearest even."""
    fl = np.floor(n)
    frac = n - fl
    if rule == "toward_zero":
        return fl
    up = frac > 0.5
    tie = frac == 0.5
    if rule == "half_away":
        up |= tie
    elif rule == "half_up":  # ties toward +inf: up in magnitude only for positive values
        up |= tie & ~negative
    elif rule == "half_even":
        up |= tie & (fl % 2 == 1)
    return fl + up


def _round_values(x, src: DType, to: DType, rule: str) -> np.ndarray:
    """The source values rounded to `to`'s precision by `rule` (exponent unbounded), as float64 values that
    the reference then treats as already rounded. Exact: big integers go through Fraction."""
    ints = None
    if src.is_integer or src.kind == "bool":
        ints = np.asarray(x).astype(np.uint64 if src.kind == "uint" else np.int64)
        big = np.abs(ints.astype(np.float64)) >= 2.0**53
        if big.any():
            return _round_big_ints(ints, to, rule)
    if src.is_float or ints is not None:
        with np.errstate(invalid="ignore"):
            v = np.asarray(x if ints is None else ints, dtype=src.np_dtype if ints is None else None).astype(np.float64)
        out = v.copy()
        fin = np.isfinite(v) & (v != 0)
        a = np.abs(v[fin])
        with np.errstate(all="ignore"):
            _, e = np.frexp(a)
            exp = np.maximum(e.astype(np.int64) - 1, to.min_exponent)
            q = np.ldexp(1.0, (exp - to.mantissa_bits).astype(np.int32))
            r = _round_magnitude(a / q, rule, v[fin] < 0) * q
        out[fin] = np.copysign(r, v[fin])
        return out
    raise TypeError(f"no rounding of {src.name} values")


def _round_big_ints(x: np.ndarray, to: DType, rule: str) -> np.ndarray:
    """_round_values for integers beyond 2**53, exactly through Fraction."""
    out = []
    for i in np.asarray(x).ravel().tolist():
        q = Fraction(int(i))
        if q == 0:
            out.append(0.0)
            continue
        a = abs(q)
        exp = max(a.numerator.bit_length() - 1, to.min_exponent)
        quantum = Fraction(2) ** (exp - to.mantissa_bits)
        n = a / quantum
        fl = n.numerator // n.denominator
        frac = n - fl
        up = frac > Fraction(1, 2) or (frac == Fraction(1, 2) and (rule == "half_away" or (rule == "half_up" and q > 0)))
        if rule == "toward_zero":
            up = False
        m = (fl + up) * quantum
        try:
            val = float(m)
        except OverflowError:
            val = math.inf
        out.append(val if q > 0 else -val)
    return np.array(out, dtype=np.float64).reshape(np.shape(x))


def _round_to_integers(x, src: DType, rule: str) -> np.ndarray:
    """Float source values rounded to integers by `rule`, as float64 (the reference takes integers as they are)."""
    with np.errstate(invalid="ignore"):
        v = np.asarray(x, dtype=src.np_dtype).astype(np.float64)
    fin = np.isfinite(v)
    out = v.copy()
    out[fin] = np.copysign(_round_magnitude(np.abs(v[fin]), rule, v[fin] < 0), v[fin])
    return out


def _tie_rule(rule: str, what: str, seen: str = ""):
    def kernel(x, src, to, saturate, round_mode, opset):
        if not _rounding_pair(src, to):
            return _cast(x, src, to, saturate, round_mode, opset)
        if to.is_integer:  # int4 / int2: what is out of range stays so (the reference decides on x)
            o = _outcome(x, src, to, saturate, round_mode, opset)
            z = _cast(_round_to_integers(x, src, rule), dtypes.get("double"), to, saturate, round_mode, opset)
            return np.where(o.mask(), o.outputs[0], z)
        return _cast(_round_values(x, src, to, rule), dtypes.get("double"), to, saturate, round_mode, opset)

    def applies(p):
        src, to, *_ = _params(p)
        return _rounding_pair(src, to)

    def equivalent(p):
        src, to, *_ = _params(p)
        if _holds_all(to, src):
            return f"every {src.name} value is exact in {to.name}: nothing is rounded"
        return None

    return Fault(f"cast.round_{rule}", what, _node(kernel), seen_in=seen, equivalent=equivalent, applies=applies)


def _rounding_pair(src: DType, to: DType) -> bool:
    """`to` rounds `src`'s values to nearest even: a float target, or int4 / uint4 / int2 / uint2 from a float."""
    return src.kind not in ("string", "bool") and _is_rounding_float(to) and to.name != "double" or (
        to.name == "double" and src.is_integer) or _subbyte_from_float(src, to)


def _subbyte_from_float(src: DType, to: DType) -> bool:
    return src.is_float and to.is_integer and to.bits < 8


def _truncating_pair(p) -> bool:
    """float -> int8..uint64, where the reference truncates (READING_TRUNCATION)."""
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    return src.is_float and to.is_integer and to.bits >= 8


def _subbyte_add_half_float32(x, src, to, saturate, round_mode, opset):
    """float -> int4 / uint4 / int2 / uint2 as trunc(x +- 0.5) in float32 arithmetic, the source first rounded to
    float32: half away from zero, plus the sum's own rounding (0.49999997f + 0.5f == 1.0f)."""
    o = _outcome(x, src, to, saturate, round_mode, opset)
    y = o.outputs[0]
    if not _subbyte_from_float(src, to):
        return y
    with np.errstate(all="ignore"):
        v = np.asarray(x, dtype=src.np_dtype).astype(np.float32)
        r = np.trunc(v + np.copysign(np.float32(0.5), v)).astype(np.float64)
    ok = ~o.mask()
    z = _cast(np.where(ok, r, 0.0), dtypes.get("double"), to, saturate, round_mode, opset)
    return np.where(ok, z, y)


def _int_round_nearest_even(x, src, to, saturate, round_mode, opset):
    """float -> int8..uint64 rounded to nearest even instead of truncated (in range, where the reference is defined)."""
    o = _outcome(x, src, to, saturate, round_mode, opset)
    if not (src.is_float and to.is_integer and to.bits >= 8):
        return o.outputs[0]
    z = _cast(_round_to_integers(x, src, "half_even"), dtypes.get("double"), to, saturate, round_mode, opset)
    return np.where(o.mask(), o.outputs[0], z)
