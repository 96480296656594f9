"""IREE 3.13 llvm-cpu's Cast, as measured here on the committed suite (docs/discrepancies.md, "IREE")."""

from __future__ import annotations

import math

import numpy as np

from generator import dtypes
from generator.reference.cast_faults.common import _cast
from generator.reference.cast_faults.openvino import _wrap_to
from generator.reference.cast_faults.ranges import _values

IREE = "IREE 3.13.0 llvm-cpu (measured here on the committed suite)"


def _e4m3fn_negative_nan(x, src, to, saturate, round_mode, opset):
    """float8e4m3fn's negative NaN 0xFF decoded by the exponent rule, as -480 (1.875 * 2**8), then converted;
    0x7F, the positive NaN, stays NaN: a decoder that tests the NaN pattern without its sign bit."""
    if src.name != "float8e4m3fn":
        return _cast(x, src, to, saturate, round_mode, opset)
    bits = src.to_bits(np.asarray(x))
    f32 = dtypes.get("float")
    v = np.where(bits == 0xFF, np.float32(-480.0), np.asarray(x).astype(np.float32))
    return _cast(v.astype(np.float32), f32, to, saturate, round_mode, opset)



def _ftz_after_rounding(x, src, to, saturate, round_mode, opset):
    """x86-style flush to zero, tininess detected after rounding: each value rounded to the target's precision
    as if its exponent were unbounded (to nearest even); a nonzero result below the target's smallest normal gives
    a zero of its sign, the others convert as the reference converts them. float64 0x1.fffffep-127 is exact at
    24 bits and tiny: 0 (RNE at float32's subnormal spacing gives FLT_MIN); 0x1.fffffffffffffp-127 rounds to
    2**-126: FLT_MIN either way."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if not src.is_float or src.nan_style == dtypes.E8M0 or not to.is_float or to.nan_style == dtypes.E8M0:
        return y
    with np.errstate(all="ignore"):
        v = np.asarray(x, dtype=src.np_dtype).astype(np.float64)
        fin = np.isfinite(v) & (v != 0) & (np.abs(v) < to.smallest_normal)
        _, e = np.frexp(np.where(fin, v, 1.0))
        q = np.ldexp(1.0, (e.astype(np.int64) - 1 - to.mantissa_bits).astype(np.int32))
        r = np.rint(np.where(fin, v, 1.0) / q) * q
    return _zeroed(y, fin & (np.abs(r) < to.smallest_normal), v, to)


def _zeroed(y, where, v, to):
    """y with the elements `where` replaced by a zero of v's sign (+0 where the target has no -0)."""
    if not where.any():
        return y
    y = np.array(y, copy=True)
    zero = to.from_bits(np.zeros(1, dtype=np.uint64))[0]
    neg_zero = to.from_bits(np.array([to.sign_mask], dtype=np.uint64))[0] if to.has_negative_zero else zero
    y[where] = np.where(v[where] < 0, neg_zero, zero)
    return y


def _ftz_after_rounding_via_float(x, src, to, saturate, round_mode, opset):
    """float64 -> float16 / bfloat16 as IREE lowers it: to float32 first, then to the target, each step flushing
    to zero with tininess after rounding (_ftz_after_rounding): 65519.99999999999 -> Inf in float16 (double
    rounding), 2.980232238769532e-08 -> 0 (float16 subnormal results flushed)."""
    f32 = dtypes.get("float")
    if src.name != "double" or to.name not in ("float16", "bfloat16"):
        return _cast(x, src, to, saturate, round_mode, opset)
    mid = _ftz_after_rounding(x, src, f32, True, "nearest", opset)
    return _ftz_after_rounding(mid, f32, to, saturate, round_mode, opset)


def _float8_carry_lost(x, src, to, saturate, round_mode, opset):
    """float 8: a value below the smallest normal that rounds up onto it (the subnormal mantissa's carry into the
    exponent) gives a zero of its sign: float8e4m3fn 0.0146484375 .. 0.015624999 -> 0, not 0.015625; the other
    subnormal results are the reference's."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if not to.is_float8 or to.nan_style == dtypes.E8M0 or src.kind in ("string", "bool"):
        return y
    with np.errstate(all="ignore"):
        v = np.asarray(x, dtype=src.np_dtype).astype(np.float64)
        r = np.abs(np.asarray(y).astype(np.float64))
    carried = np.isfinite(v) & (v != 0) & (np.abs(v) < to.smallest_normal) & (r == to.smallest_normal)
    return _zeroed(y, carried, v, to)


def _iree_float8(x, src, to, saturate, round_mode, opset):
    """IREE's float 8 conversion: saturate ignored (overflow -> NaN / Inf as with saturate=0), a NaN result the
    target's positive NaN (0x7F; 0x80 for FNUZ) where the input is NaN or beyond the format's last binade (-896 ->
    0x7F) while a finite value that rounds onto the NaN code keeps its sign (-472 -> 0xFF), and the carry of a
    subnormal's rounding into the smallest normal lost (_float8_carry_lost)."""
    y = _float8_carry_lost(x, src, to, False, round_mode, opset)
    if not to.is_float8 or to.nan_style == dtypes.E8M0:
        return y
    with np.errstate(all="ignore"):
        v = np.abs(np.asarray(x, dtype=src.np_dtype).astype(np.float64)) if src.kind != "string" else None
    top = 2.0 ** (math.floor(math.log2(to.finite_max)) + 1)  # the first power of two beyond the format
    canonical = to.isnan(y) & ~(np.isfinite(v) & (v < top))  # a finite value rounding onto the NaN code keeps its sign
    bits = to.to_bits(np.asarray(y)).copy()
    bits[canonical] = to.nan_bits
    return to.from_bits(bits)


def _uint32_via_int32(x, src, to, saturate, round_mode, opset):
    """float -> uint32 through int32 as x86's cvttss2si / cvttsd2si converts: a truncation outside int32 (2**31
    and above) gives 0x80000000, the 'integer indefinite', whatever the source's width (4294967295.0 ->
    2147483648); the others are the reference's."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "uint32" or not src.is_float:
        return y
    v = _values(x, src)
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(np.isfinite(v), v, 2.0**31))
    return np.where((t >= -2.0**31) & (t < 2.0**31), y, _wrap_to(np.full(np.shape(y), -2**31), to)).astype(y.dtype)


def _uint32_via_int32_equivalent(p) -> str | None:
    src = dtypes.get(p["from"])
    if src.is_float and src.finite_max < 2.0**31:
        return f"every finite {src.name} value is below 2**31: its truncation is its own int32"
    return None


FTZ_SOURCES = ("double", "float", "bfloat16", "float16")


def _ftz_applies(p) -> bool:
    to = dtypes.get(p["to"])
    return p["from"] in FTZ_SOURCES and p["from"] != p["to"] and to.is_float and to.nan_style != dtypes.E8M0




def _float8_applies(p) -> bool:
    """Float sources into float8e4m3fn / e5m2 / e4m3fnuz / e5m2fnuz (measured from float32 and bfloat16; integer
    sources were not seen losing the sign of a NaN)."""
    to = dtypes.get(p["to"])
    return to.is_float8 and to.nan_style != dtypes.E8M0 and dtypes.get(p["from"]).is_float and p["from"] != p["to"]
