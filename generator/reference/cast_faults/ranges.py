"""Range, sign and subnormal faults: saturation ignored or always applied, overflow decided on x, -0 and the sign of
NaN lost, subnormals flushed, integers saturating instead of wrapping."""

from __future__ import annotations

import math

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import Fault, same_elements
from generator.reference import cast as ref
from generator.reference.cast_faults.common import _cast, _is_rounding_float, _node, _outcome, _params


# ---------------------------------------------------------------------------------------
# saturation and overflow
# ---------------------------------------------------------------------------------------
def _saturate_flipped(always: bool):
    def kernel(x, src, to, saturate, round_mode, opset):
        return _cast(x, src, to, True if always else False, round_mode, opset)

    def applies(p):
        src, to, saturate, *_ = _params(p)
        return "saturate" in p and saturate != always

    def equivalent(p):
        src, to, saturate, round_mode, _ = _params(p)
        if always and to.nan_style == dtypes.E8M0 and round_mode == "up" and (src.is_integer or src.kind == "bool"):
            return "0 is undefined (up, saturate=0) and every other integer lies in [E8M0_MIN, E8M0_MAX]"
        return None

    name, what = (("cast.saturate_always", "applies saturate=1 whatever the attribute says") if always else
                  ("cast.saturate_ignored", "treats saturate=1 as 0: overflow gives Inf / NaN"))
    seen = ("onnxruntime 1.31 ignores saturate=0 for float8 targets; onnx-reference 1.23.2: 103 failing items "
            "consistent with it (baseline of issue 21, measured here)" if always else
            "onnxruntime 1.32.0 (3 failing items) and onnx-reference 1.23.2 (1) consistent with it (baseline of "
            "issue 21, measured here); modelled as the attribute's default taken as 0")
    return Fault(name, what, _node(kernel), seen_in=seen, applies=applies, equivalent=equivalent)


def _overflow_on_x_kernel(x, src, to, saturate, round_mode, opset):
    """Overflow decided on x: a value above FLT_MAX that rounds to FLT_MAX overflows instead."""
    if src.kind == "string" or not _is_rounding_float(to) or to.name == "double":
        return _cast(x, src, to, saturate, round_mode, opset)
    y = _cast(x, src, to, saturate, round_mode, opset)
    v = _values(x, src)
    over = np.isfinite(v) & (np.abs(v) > to.finite_max)
    if over.any():
        huge = np.copysign(to.finite_max * 2, v[over])  # beyond any rounding back into range
        y = y.copy()
        y[over] = _cast(huge, dtypes.get("double"), to, saturate, round_mode, opset)
    return y


def _e8m0_range_on_rounded_kernel(x, src, to, saturate, round_mode, opset):
    """float8e8m0, round_mode nearest, saturate=0: out of range decided on [x], not on x as the table does."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.nan_style != dtypes.E8M0 or src.kind == "string" or saturate or round_mode != "nearest":
        return y
    v = _values(x, src)
    lo, hi = to.smallest_normal, to.finite_max
    with np.errstate(invalid="ignore"):
        back_high = (v > hi) & (v < 1.5 * hi)  # rounds (nearest, ties up) to 2**127
        back_low = (v < lo) & (v >= 0.75 * lo)  # rounds to 2**-127
    y = y.copy()
    y[back_high] = to.from_bits(np.array([254], dtype=np.uint8))[0]
    y[back_low] = to.from_bits(np.array([0], dtype=np.uint8))[0]
    return y


def _values(x, src: DType) -> np.ndarray:
    """Source elements as float64 (big integers approximately: only their magnitude matters here)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(x, dtype=src.np_dtype).astype(np.float64)


# ---------------------------------------------------------------------------------------
# signs, subnormals, integers
# ---------------------------------------------------------------------------------------
def _neg_zero_lost(x, src, to, saturate, round_mode, opset):
    y = _cast(x, src, to, saturate, round_mode, opset)
    if not to.is_float or not to.has_negative_zero:
        return y
    z = (y.astype(np.float64) == 0) & np.signbit(y.astype(np.float64))
    y = y.copy()
    y[z] = to.from_bits(np.zeros(1, dtype=np.uint64))[0]
    return y


def _nan_sign_lost(x, src, to, saturate, round_mode, opset):
    y = _cast(x, src, to, saturate, round_mode, opset)
    if not to.is_float or to.negative_nan_bits is None:
        return y
    bits = to.to_bits(y).copy()
    bits[to.isnan(y)] = to.nan_bits
    return to.from_bits(bits)


def _flush(y: np.ndarray, t: DType) -> np.ndarray:
    """Subnormals of float type t -> zero of the same sign."""
    if not t.is_float or t.nan_style == dtypes.E8M0:
        return y
    with np.errstate(invalid="ignore"):
        v = np.asarray(y, dtype=t.np_dtype).astype(np.float64)
    sub = np.isfinite(v) & (v != 0) & (np.abs(v) < t.smallest_normal)
    if not sub.any():
        return y
    y = np.array(y, dtype=t.np_dtype, copy=True)
    zero = t.from_bits(np.zeros(1, dtype=np.uint64))[0]
    neg_zero = t.from_bits(np.array([t.sign_mask], dtype=np.uint64))[0] if t.has_negative_zero else zero
    y[sub] = np.where(v[sub] < 0, neg_zero, zero)
    return y


def _ftz_source(x, src, to, saturate, round_mode, opset):
    return _cast(_flush(x, src) if src.is_float else x, src, to, saturate, round_mode, opset)


def _ftz_result(x, src, to, saturate, round_mode, opset):
    return _flush(_cast(x, src, to, saturate, round_mode, opset), to)


def _overflow_to_nan(x, src, to, saturate, round_mode, opset):
    """float8e5m2, saturate=0: a finite value beyond FLT_MAX gives NaN (as E4M3FN's row does) instead of Inf."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "float8e5m2" or saturate:
        return y
    if src.kind == "string":
        parsed = [ref.parse_number(s) for s in np.asarray(x, dtype=object).ravel()]
        infinite = np.array([isinstance(p, float) and math.isinf(p) for p in parsed], dtype=bool).reshape(np.shape(x))
    else:
        infinite = np.isinf(_values(x, src))
    over = ~infinite & np.isinf(y.astype(np.float64))
    if over.any():
        y = y.copy()
        y[over] = to.from_bits(np.array([to.nan_bits], dtype=np.uint64))[0]
    return y


def _no_overflow(p) -> str | None:
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    if src.kind == "string":
        return None
    biggest = max(-src.int_min, src.int_max) if src.is_integer else 1 if src.kind == "bool" else src.finite_max
    return f"no {src.name} value exceeds {to.name}'s FLT_MAX" if biggest <= to.finite_max else None


def _ftz_source_equivalent(p) -> str | None:
    src, to, saturate, round_mode, opset = _params(p)
    if not src.is_float or src.nan_style == dtypes.E8M0:
        return None
    largest = src.from_bits(np.array([(1 << src.mantissa_bits) - 1], dtype=np.uint64))  # largest subnormal
    x = np.concatenate([largest, -largest.astype(np.float64).astype(src.np_dtype)])
    zeros = np.array([0.0, -0.0]).astype(src.np_dtype)
    if to.nan_style == dtypes.E8M0 and float(largest[0]) < to.smallest_normal:
        return "every subnormal input is below E8M0_MIN, where the table treats it as it treats zero"
    if not (_is_rounding_float(to) or to.is_integer):
        return None
    o = _outcome(x, src, to, saturate, round_mode, opset)
    z = _cast(zeros, src, to, saturate, round_mode, opset)
    if (o.mask() | same_elements(o.outputs[0], z, to, nan_sign=True)).all():
        return (f"the largest {src.name} subnormals give what zeros of their sign give (or are undefined), and "
                f"rounding / truncation is monotone: every subnormal does")
    return None


def _ftz_result_equivalent(p) -> str | None:
    src, to, *_ = _params(p)
    smallest = 1.0 if src.is_integer or src.kind == "bool" else src.smallest_subnormal
    if smallest >= to.smallest_normal:
        return f"no nonzero {src.name} value is below {to.name}'s smallest normal: no result is subnormal"
    return None


def _overflow_on_x_equivalent(p) -> str | None:
    src, to, saturate, *_ = _params(p)
    if _no_overflow(p):
        return _no_overflow(p)
    if (to.is_float8 and saturate) or to.nan_style == dtypes.NONE:
        return "with saturation an overflow gives FLT_MAX, which [x] is"
    return None


def _int_saturating(x, src, to, saturate, round_mode, opset):
    if not (src.is_integer or src.kind == "bool") or not to.is_integer:
        return _cast(x, src, to, saturate, round_mode, opset)
    ints = np.asarray(x).astype(object)
    clipped = np.array([min(max(int(i), to.int_min), to.int_max) for i in ints.ravel()], dtype=object)
    return clipped.reshape(np.shape(x)).astype(to.np_dtype)


def _fits(src: DType, to: DType) -> bool:
    return src.kind == "bool" or (to.int_min <= src.int_min and src.int_max <= to.int_max)
