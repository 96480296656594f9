"""Fault models of ONNX Cast: plausible wrong implementations, each the reference with one deviation
(DESIGN.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module holds).

Every fault has the signature of generator.reference.cast.cast_node and is built from the reference
itself (generator.reference.cast), changed in one place:
  - a value rounded through a wider intermediate type first (double rounding);
  - another tie rule, or truncation, in place of round-to-nearest-even (float targets, and the int4 / int2
    targets whose notes state it); rounding in place of truncation for the wider integer targets;
  - saturate ignored or always applied; overflow decided on x instead of [x] (and the reverse for
    float8e8m0, whose table decides on x);
  - the sign of -0 or of NaN lost; subnormals flushed, in the source or the result;
  - integer -> integer saturating instead of wrapping;
  - float8e8m0's power of two chosen from log2(x), from the exponent field, or with ties to even;
  - strings parsed through float32 / float64 first.

`applies(params)` says where a fault is a plausible implementation at all (double rounding needs an
intermediate type wider than the target; the tie rules need a rounding target); elsewhere it is "not
applicable" in the kill matrix. `equivalent(params)` gives the analytic proof where it cannot differ.

Group of a case: (from, to, saturate, round_mode, opset), from case.json "params" and "opset".
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import Fault, same_elements
from generator.reference import cast as ref

INTERMEDIATES = ("float16", "bfloat16", "float", "double")


def group_key(meta: dict) -> str:
    p = meta.get("params") or {}
    parts = [f"{p['from']}->{p['to']}"]
    if "saturate" in p:
        parts.append(f"saturate={p['saturate']}")
    if "round_mode" in p:
        parts.append(f"round_mode={p['round_mode']}")
    parts.append(f"opset={meta['opset']}")
    return " ".join(parts)


def _params(p: dict) -> tuple[DType, DType, bool, str, int]:
    return (dtypes.get(p["from"]), dtypes.get(p["to"]), bool(p.get("saturate", 1)), p.get("round_mode", "up"),
            int(p["opset"]))


def _node(kernel):
    """A node function from kernel(x, src, to, saturate, round_mode, opset) -> y (attributes as cast_node reads them)."""
    def fn(inputs, attrs, opset, input_types):
        a = ref.node_attributes(attrs, opset)
        return [kernel(np.asarray(inputs[0]), dtypes.get(input_types[0]), dtypes.get(int(attrs["to"])), a["saturate"],
                       a["round_mode"], opset)]
    return fn


def _outcome(x, src, to, saturate, round_mode, opset):
    return ref.cast_outcome(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)


def _cast(x, src, to, saturate, round_mode, opset):
    return _outcome(x, src, to, saturate, round_mode, opset).outputs[0]


# ---------------------------------------------------------------------------------------
# type facts the applicability rules need
# ---------------------------------------------------------------------------------------
def _is_rounding_float(t: DType) -> bool:
    """A float target with a mantissa (every float but float8e8m0)."""
    return t.is_float and t.nan_style != dtypes.E8M0


def _holds_all(big: DType, small: DType) -> bool:
    """Every finite value of `small` is exact in `big` (float or integer `small`, float `big`)."""
    if not big.is_float or big.nan_style == dtypes.E8M0:
        return False
    if small.kind == "bool":
        return True
    if small.is_integer:
        mag = max(abs(small.int_min), small.int_max)
        return mag.bit_length() <= big.mantissa_bits + 1 and mag <= big.finite_max
    if not small.is_float:
        return False
    if small.nan_style == dtypes.E8M0:
        return big.min_exponent - big.mantissa_bits <= -127 and big.finite_max >= small.finite_max
    return (small.mantissa_bits <= big.mantissa_bits and small.finite_max <= big.finite_max
            and small.min_exponent - small.mantissa_bits >= big.min_exponent - big.mantissa_bits)


def _wider(t: DType, to: DType) -> bool:
    """t is a plausible intermediate for `to`: it holds every value of `to`, Inf where `to` has it."""
    return t.name != to.name and _holds_all(t, to)


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
    "float": "onnxruntime 1.31 (double -> float8 / float4 / bfloat16 through float32; integer -> bfloat16 "
             "through float32), OpenVINO 2026.4 (through float32)",
    "float16": "OpenVINO 2026.4 (float8 through f16)",
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
    seen = "onnxruntime 1.31 ignores saturate=0 for float8 targets" if always else ""
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
    return k + 1 if mode == "up" else ref.e8m0_exponent(v, mode)


def _ties_even_choice(v, mode, src):
    """nearest with ties (1.5 * 2**k) to the even exponent instead of up."""
    k = ref.e8m0_exponent(v, mode)
    if mode != "nearest":
        return k
    m, e = np.frexp(v)
    tie = (2 * m) == 1.5
    base = e.astype(np.int64) - 1
    return np.where(tie, np.where(base % 2 == 0, base, base + 1), k)


def _e8m0(p) -> bool:
    return _params(p)[1].nan_style == dtypes.E8M0 and p["from"] != "string"


# ---------------------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------------------
def _string_via(ft: str):
    t = dtypes.get(ft)

    def kernel(x, src, to, saturate, round_mode, opset):
        if src.kind != "string" or to.kind in ("string", "bool"):
            return _cast(x, src, to, saturate, round_mode, opset)
        y = _cast(x, src, t, True, "up", opset)  # strtof / strtod
        if to.is_integer:  # then truncated toward zero as float -> integer
            vals = y.astype(np.float64)
            vals = np.where(np.isfinite(vals), np.trunc(vals), 0.0)
            return np.array([int(v) for v in vals.ravel()], dtype=object).reshape(np.shape(x)).astype(to.np_dtype) \
                if all(to.int_min <= int(v) <= to.int_max for v in vals.ravel()) else \
                _cast(np.clip(vals, to.int_min, to.int_max), dtypes.get("double"), to, saturate, round_mode, opset)
        return _cast(y, t, to, saturate, round_mode, opset)

    def applies(p):
        return p["from"] == "string" and p["to"] not in ("string", "bool")

    def equivalent(p):
        to = dtypes.get(p["to"])
        if to.is_float and to.name != "double":
            return ("the reference leaves undefined every string that rounds differently when parsed to float32 "
                    "or float64 first (UNDEF_STRING_ROUNDING)")
        if to.name == "double" and ft == "double":
            return "parsing to float64 is the one correctly rounded result for a double target"
        if to.is_integer and max(-to.int_min, to.int_max).bit_length() <= t.mantissa_bits + 1:
            return f"every {to.name} integer string is exact in {ft}"
        return None

    return Fault(f"cast.string_via_{ft}", f"parses the string to {ft} first (strto{'f' if ft == 'float' else 'd'})",
                 _node(kernel), equivalent=equivalent, applies=applies)


# ---------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------
def _numeric(p) -> bool:
    return p["from"] != "string" and p["to"] != "string"


def _float_source(p) -> bool:
    return dtypes.get(p["from"]).is_float and p["to"] != "string"


FAULTS: tuple[Fault, ...] = (
    *(_via(t) for t in INTERMEDIATES),
    _tie_rule("half_away", "rounds ties away from zero instead of to even",
              "OpenVINO (integer and f8 paths), onnxruntime 1.32.0 (float -> int4 / uint4 / int2 / uint2)"),
    _tie_rule("half_up", "rounds ties toward +inf instead of to even"),
    _tie_rule("toward_zero", "truncates toward zero instead of rounding to nearest even",
              "onnx-reference 1.23.2 (float -> int4 / uint4 / int2 / uint2 through ml_dtypes)"),
    Fault("cast.subbyte_add_half_float32", "float -> int4 / uint4 / int2 / uint2 as trunc(x +- 0.5) in float32 "
          "(half away from zero, and 0.49999997 -> 1; a double rounded to float32 first)",
          _node(_subbyte_add_half_float32), seen_in="OpenVINO 2026.4.1 (float -> int4 / uint4)",
          applies=lambda p: _subbyte_from_float(dtypes.get(p["from"]), dtypes.get(p["to"]))),
    Fault("cast.int_round_nearest_even", "float -> int8..uint64 rounds to nearest even instead of truncating toward "
          "zero (cvtps2dq for cvttps2dq; the int4 / int2 notes' rule taken for every integer)",
          _node(_int_round_nearest_even), applies=_truncating_pair),
    _saturate_flipped(always=False),
    _saturate_flipped(always=True),
    Fault("cast.overflow_on_x", "decides overflow on x instead of the rounded [x] (FLT_MAX < x < FLT_MAX + ulp/2 "
          "overflows)", _node(_overflow_on_x_kernel), equivalent=_overflow_on_x_equivalent,
          applies=lambda p: _numeric(p) and _is_rounding_float(dtypes.get(p["to"])) and p["to"] != "double"
          and not dtypes.get(p["from"]).kind == "bool"),
    Fault("cast.e5m2_overflow_nan", "float8e5m2, saturate=0: a finite value beyond FLT_MAX gives NaN instead of "
          "Inf", _node(_overflow_to_nan), seen_in="onnxruntime 1.31",
          applies=lambda p: p["to"] == "float8e5m2" and p.get("saturate") == 0, equivalent=_no_overflow),
    Fault("cast.e8m0_range_on_rounded", "float8e8m0, nearest, saturate=0: decides out of range on [x] instead of x "
          "as the table does", _node(_e8m0_range_on_rounded_kernel),
          applies=lambda p: _e8m0(p) and p.get("saturate") == 0 and p.get("round_mode") == "nearest",
          equivalent=lambda p: "an integer is 0 or lies in [1, 2**64): never just outside E8M0's range"
          if dtypes.get(p["from"]).is_integer or p["from"] == "bool" else None),
    Fault("cast.negative_zero_lost", "gives +0 where the result is -0", _node(_neg_zero_lost),
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).is_float
          and dtypes.get(p["to"]).has_negative_zero),
    Fault("cast.nan_sign_lost", "gives +NaN where the result is -NaN", _node(_nan_sign_lost),
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).negative_nan_bits is not None,
          equivalent=lambda p: None if (p.get("saturate") == 0 and dtypes.get(p["to"]).is_float8
                                        and dtypes.get(p["from"]).negative_nan_bits is not None) else
          "the spec states the sign of NaN only in the saturate=0 float8 rows; elsewhere it is not compared"),
    Fault("cast.ftz_source", "flushes subnormal inputs to zero before converting", _node(_ftz_source),
          applies=lambda p: _float_source(p) and p["from"] not in ("float8e8m0",), equivalent=_ftz_source_equivalent),
    Fault("cast.ftz_result", "flushes subnormal results to zero", _node(_ftz_result),
          applies=lambda p: p["from"] != "string" and _is_rounding_float(dtypes.get(p["to"])),
          equivalent=_ftz_result_equivalent),
    Fault("cast.int_saturate", "integer -> narrower integer saturates instead of wrapping (two's complement)",
          _node(_int_saturating),
          applies=lambda p: (dtypes.get(p["from"]).is_integer or p["from"] == "bool") and dtypes.get(p["to"]).is_integer,
          equivalent=lambda p: f"every {p['from']} value fits {p['to']}"
          if _fits(dtypes.get(p["from"]), dtypes.get(p["to"])) else None),
    Fault("cast.e8m0_log2", "float8e8m0: the power of two chosen from log2(x) computed in float32 (float64 for "
          "64-bit sources), not from the value", _node(_e8m0_kernel(_log2_choice)), applies=_e8m0),
    Fault("cast.e8m0_up_exponent", "float8e8m0, round_mode up: 2**(exponent + 1) even for an exact power of two",
          _node(_e8m0_kernel(_exponent_up_choice)), applies=lambda p: _e8m0(p) and p.get("round_mode") == "up"),
    Fault("cast.e8m0_nearest_ties_even", "float8e8m0, round_mode nearest: ties (1.5 * 2**k) to the even exponent "
          "instead of up", _node(_e8m0_kernel(_ties_even_choice)),
          applies=lambda p: _e8m0(p) and p.get("round_mode") == "nearest"),
    _string_via("float"),
    _string_via("double"),
)
