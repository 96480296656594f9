"""Cast to float targets (IEEE, float 8 with its tables, float8e8m0, float4, float6) and to integer and bool
targets."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.reference.cast_reasons import (READING_E8M0_NOSAT, READING_E8M0_SATURATE, READING_IEEE_RNE,
                                               READING_TRUNCATION, ROUND_MODES, UNDEF_E8M0_NEGATIVE, UNDEF_E8M0_RANGE,
                                               UNDEF_FLOAT4_NAN, UNDEF_FLOAT6_NAN, UNDEF_FLOAT_TO_INT_OOR,
                                               UNDEF_FLOAT_TO_SUBBYTE_OOR, UNDEF_NAN_TO_INT)
from generator.reference.cast_rounding import round_to_precision


def _encode(to: DType, val: np.ndarray, nan: np.ndarray, nan_negative: np.ndarray) -> np.ndarray:
    """Elements of `to` from exact float64 values; NaN positions get the canonical encodings."""
    with np.errstate(all="ignore"):
        y = np.where(nan, 0.0, val).astype(to.np_dtype)
    if nan.any():
        bits = to.to_bits(y).copy()
        bits[nan] = to.nan_bits
        if to.negative_nan_bits is not None:
            bits[nan & nan_negative] = to.negative_nan_bits
        y = to.from_bits(bits)
    return y


def _to_float(v: np.ndarray, to: DType, saturate: bool, round_mode: str, opset: int):
    """float64 (exact source values, may hold NaN / Inf) -> float type `to`: (y, why, reading)."""
    v = np.asarray(v, dtype=np.float64)
    why = np.full(v.shape, "", dtype=object)
    reading = np.full(v.shape, "", dtype=object)
    isnan = np.isnan(v)
    neg = np.signbit(v)
    isinf = np.isinf(v)
    finite = ~isnan & ~isinf
    if to.nan_style == dtypes.E8M0:
        return _to_e8m0(v, to, saturate, round_mode, why, reading)
    with np.errstate(all="ignore"):
        r = np.where(finite, round_to_precision(np.where(finite, v, 0.0), to), v)
    over = finite & (np.abs(r) > to.finite_max)
    val = r.copy()
    nan = isnan.copy()
    fmax = to.finite_max
    if to.nan_style == dtypes.IEEE and not to.is_float8:
        # IEEE types: +/- infinity if OOR [Cast]; NaN stays NaN. Rounding: READING_IEEE_RNE
        val[over] = np.copysign(np.inf, r[over])
        reading[finite & (r != v) & ~over] = READING_IEEE_RNE  # an x that overflows is out of range either way
    elif to.nan_style == dtypes.NONE:
        # float4e2m1 [float4] / float6 [float6]: RNE saturating at +-FLT_MAX whatever `saturate`
        # says (it applies to float8 only); +-Inf -> +-FLT_MAX; -0 -> -0. NaN: unspecified.
        val[over | isinf] = np.copysign(fmax, v[over | isinf])
        val[isnan] = fmax  # placeholder
        nan[:] = False
        why[isnan] = UNDEF_FLOAT4_NAN if to.name == "float4e2m1" else UNDEF_FLOAT6_NAN
    else:
        # the four float8 types: the tables of [Cast]
        fnuz = to.nan_style == dtypes.FNUZ
        if saturate:
            val[over] = np.copysign(fmax, r[over])
            if fnuz and opset < 24:
                nan |= isinf  # Cast-19..23: +-Inf -> NaN for FNUZ
            else:
                val[isinf] = np.copysign(fmax, v[isinf])  # [Cast-24]
        else:
            if to.nan_style == dtypes.IEEE:  # E5M2: Inf and overflow -> +-Inf
                val[over] = np.copysign(np.inf, r[over])
            else:  # E4M3FN, FNUZ: Inf and overflow -> NaN (sign kept for E4M3FN)
                nan |= over | isinf
        if fnuz:
            val[finite & (r == 0)] = 0.0  # -0 -> 0: the FNUZ types have no -0
    return _encode(to, val, nan, neg), why, reading


def e8m0_exponent(v: np.ndarray, round_mode: str) -> np.ndarray:
    """The exponent k of the power of two 2**k that round_mode picks for positive finite values v, decided on
    the value (v = f * 2**j, f in [1, 2)): down j, up j + (f > 1), nearest j + (f >= 1.5) (ties up). [Cast-24]"""
    m, e = np.frexp(v)
    f, k = 2 * m, e.astype(np.int64) - 1
    if round_mode == "up":
        return k + (f > 1)
    if round_mode == "nearest":
        return k + (f >= 1.5)
    return k


def _to_e8m0(v: np.ndarray, to: DType, saturate: bool, round_mode: str, why: np.ndarray, reading: np.ndarray):
    """[Cast-24] float8e8m0: a power of two 2**k, k in [-127, 127]; 0xFF is NaN.

    round_mode up / down / nearest (ties up). saturate=1: every value out of range (0 and Inf
    included) becomes E8M0_MIN / E8M0_MAX. saturate=0 with nearest: 0, Inf, x > E8M0_MAX and
    x < E8M0_MIN give NaN (the table decides on x, not on the rounded value). saturate=0 with up
    or down is not tabled: Inf and NaN give NaN; out-of-range inputs give NaN where both readings
    (on x and on the rounded value) agree (up: x > E8M0_MAX; down: x < E8M0_MIN, 0 included) and
    are undefined where they do not (up: x < E8M0_MIN; down: x > E8M0_MAX). What the table does not
    state is marked READING_E8M0_SATURATE / READING_E8M0_NOSAT."""
    if round_mode not in ROUND_MODES:
        raise ValueError(f"round_mode must be one of {ROUND_MODES}, not {round_mode!r}")
    isnan = np.isnan(v)
    neg = np.signbit(v) & ~isnan
    isinf = np.isinf(v) & ~neg
    pos = (v > 0) & ~isinf & ~isnan
    zero = (v == 0) & ~neg
    kmin, kmax = to.min_exponent, int(np.log2(to.finite_max))
    with np.errstate(all="ignore"):
        k = e8m0_exponent(np.where(pos, v, 1.0), round_mode)
    out_low = (pos & (v < to.smallest_normal)) | zero
    out_high = pos & (v > to.finite_max)
    nan = isnan.copy()
    if saturate:
        kk = np.clip(k, kmin, kmax)
        kk[out_low] = kmin
        kk[out_high | isinf] = kmax
        reading[zero if round_mode == "up" else out_low | out_high | isinf] = READING_E8M0_SATURATE
    else:
        kk = np.clip(k, kmin, kmax)  # in range never leaves [kmin, kmax]
        nan |= isinf
        if round_mode == "nearest":
            nan |= out_low | out_high
        elif round_mode == "up":
            nan |= out_high
            why[out_low] = UNDEF_E8M0_RANGE
            reading[isinf | out_high] = READING_E8M0_NOSAT
        else:
            nan |= out_low
            why[out_high] = UNDEF_E8M0_RANGE
            reading[isinf | out_low] = READING_E8M0_NOSAT
    why[neg] = UNDEF_E8M0_NEGATIVE
    bits = np.where(nan, 0xFF, (kk - kmin)).astype(np.uint8)
    bits[why != ""] = 0xFF
    reading[why != ""] = ""
    return to.from_bits(bits), why, reading



def _wrap(ints: np.ndarray, to: DType) -> np.ndarray:
    """Integer -> integer: discard higher bits, reinterpret in two's complement [Cast]."""
    a = np.asarray(ints)
    if a.dtype == object:
        bits = np.array([int(x) % (1 << to.bits) for x in a.ravel()], dtype=np.uint64).reshape(a.shape)
    else:
        bits = a.astype(np.int64).view(np.uint64) if a.dtype.kind == "i" else a.astype(np.uint64)
        if to.bits < 64:
            bits = bits & np.uint64((1 << to.bits) - 1)
    return to.from_bits(bits.astype(to.bits_dtype))


def _float_to_int(v: np.ndarray, to: DType):
    """Float -> fixed point: (y, why, reading). Undefined if OOR or NaN / Inf [Cast: "fixed point:
    undefined if OOR"], out of range decided on x: x outside [int_min, int_max] is undefined whatever
    a rounding would make of it. In range, int4 / uint4 / int2 / uint2 round to nearest, ties to
    even [int4]; the other integer types truncate toward zero, which no sentence states
    (READING_TRUNCATION)."""
    why = np.full(v.shape, "", dtype=object)
    reading = np.full(v.shape, "", dtype=object)
    finite = np.isfinite(v)
    why[~finite] = UNDEF_NAN_TO_INT
    hi = 2.0 ** (to.bits if to.kind == "uint" else to.bits - 1)  # exact, unlike float(int64 max)
    lo = float(to.int_min)
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(finite, v, 0.0))
        ok = finite & (v >= lo) & (v < hi) & ((t == v) | (v <= to.int_max))
    subbyte = to.bits < 8
    why[finite & ~ok] = UNDEF_FLOAT_TO_SUBBYTE_OOR if subbyte else UNDEF_FLOAT_TO_INT_OOR
    if subbyte:
        t = np.rint(np.where(ok, v, 0.0))  # nearest, ties to even; [lo, int_max] stays in range
    else:
        reading[ok & (t != v)] = READING_TRUNCATION
    t = np.where(ok, t, 0.0)
    ints = t.astype(np.uint64) if to.kind == "uint" else t.astype(np.int64)
    return _wrap(ints, to), why, reading
