"""OpenVINO 2026.4.1 CPU's Cast, as measured here on the issue 21 suite of the cast family."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.reference import cast as ref
from generator.reference.cast_faults.common import _cast
from generator.reference.cast_faults.measured import _via_float32
from generator.reference.cast_faults.ranges import _values


_OV = "OpenVINO 2026.4.1 CPU (measured here on the issue 21 cast suite)"


def _f32_bits(x, src) -> np.ndarray:
    return _via_float32(x, src).astype(np.float32).view(np.uint32).astype(np.int64)


def _ov_e8m0(x, src, to, saturate, round_mode, opset):
    """float8e8m0 from the float32 exponent field rounded to nearest, ties to even *field* (an odd field rounds
    up), whatever round_mode and saturate say; 0 and subnormals below 1.5 * 2**-127 -> 0x00, Inf -> 0xFE, NaN ->
    0xFF, a negative input (-NaN too) -> 0x00, no rounding past 0xFE."""
    if to.nan_style != dtypes.E8M0 or src.kind == "string":
        return _cast(x, src, to, saturate, round_mode, opset)
    b = _f32_bits(x, src)
    e, m = (b >> 23) & 0xFF, b & 0x7FFFFF
    up = (m > 0x400000) | ((m == 0x400000) & (e % 2 == 1))
    out = np.where(e == 0, (m >= 0x600000).astype(np.int64), e + up)
    out = np.where(e >= 0xFE, 0xFE, np.minimum(out, 0xFE))
    out = np.where((e == 0xFF) & (m != 0), 0xFF, out)
    out = np.where(b & 0x80000000, 0, out)  # any negative input, -NaN included -> 0x00
    return to.from_bits(out.astype(np.uint8))


def _ov_float8(x, src, to, saturate, round_mode, opset):
    """E4M3FN / E5M2 through float16 with saturate ignored: overflow gives NaN (E4M3FN) / Inf (E5M2)."""
    if to.name not in ("float8e4m3fn", "float8e5m2") or src.kind in ("string", "bool"):
        return _cast(x, src, to, saturate, round_mode, opset)
    h = dtypes.get("float16")
    return _cast(_cast(x, src, h, True, "up", opset), h, to, False, round_mode, opset)


def _ov_bf16(x, src, to, saturate, round_mode, opset):
    """float -> bfloat16 by truncating the float32 bits (the source through float32, a double beyond float32's
    range clamped to +-FLT_MAX; float32 subnormals flushed to zero); a NaN keeps only its exponent: +-Inf."""
    if to.name != "bfloat16" or not src.is_float or src.name == "bfloat16":
        return _cast(x, src, to, saturate, round_mode, opset)
    v = _values(x, src)
    with np.errstate(all="ignore"):
        f = np.where(np.isfinite(v), np.clip(v, -3.4028234663852886e38, 3.4028234663852886e38), v)
        if src.is_integer:
            f = np.asarray(x).astype(np.float32)
    with np.errstate(all="ignore"):
        bits = np.asarray(f, dtype=np.float32).view(np.uint32).astype(np.int64)
    out = bits >> 16
    nan = np.isnan(np.asarray(f, dtype=np.float64))
    out = np.where(nan, (out & 0x8000) | 0x7F80, out)
    out = np.where((bits & 0x7F800000) == 0, out & 0x8000, out)  # float32 subnormals flushed to zero
    return to.from_bits(out.astype(np.uint16))


def _ov_f64(x, src, to, saturate, round_mode, opset):
    """-> double through float32: the value rounded to float32 (a double clamped to +-FLT_MAX), +-Inf -> +-FLT_MAX."""
    if to.name != "double" or src.kind in ("string", "bool"):
        return _cast(x, src, to, saturate, round_mode, opset)
    t = dtypes.get("float")
    with np.errstate(all="ignore"):
        f = _cast(x, src, t, True, "up", opset).astype(np.float64)
    fmax = t.finite_max
    f = np.where(np.isinf(f), np.copysign(fmax, f), f)
    return f.astype(np.float64)


def _ov_int32(x, src, to, saturate, round_mode, opset):
    """64-bit integers (and uint32 into them) through int32: an integer wrapped to its low 32 bits (signed); a
    float converted to int32 (float32: out of range -> INT32_MIN, the x86 'integer indefinite'; double: clamped)."""
    if not to.is_integer or src.kind in ("string", "bool"):
        return _cast(x, src, to, saturate, round_mode, opset)
    if src.is_integer:
        wide = src.bits == 64 or to.bits == 64
        if not wide:
            return _cast(x, src, to, saturate, round_mode, opset)
        low = (np.asarray(x).astype(np.int64 if src.kind == "int" else np.uint64).astype(np.uint64)
               & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32).astype(np.int64)
        return _wrap_to(low, to)
    if to.bits < 32 or to.name == "int32":
        return _cast(x, src, to, saturate, round_mode, opset)
    v = _values(x, src)
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(np.isfinite(v), v, 0.0))
    inside = (t >= -2.0**31) & (t <= 2.0**31 - 1)
    if src.name == "double":
        i = np.clip(t, -2.0**31, 2.0**31 - 1)
    else:
        i = np.where(inside, t, -2.0**31)
    return _wrap_to(i.astype(np.int64), to)


def _wrap_to(ints: np.ndarray, to: DType) -> np.ndarray:
    return ref._wrap(np.asarray(ints, dtype=np.int64), to)
