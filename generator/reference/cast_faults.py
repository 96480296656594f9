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
from generator.reference import float8_bitwise as f8bits

INTERMEDIATES = ("float16", "bfloat16", "float", "double")


def group_key(meta: dict) -> str:
    """The group of a case. A case written at another opset of the same semantics (the opset-boundary and
    explicit-defaults axes: one opset above a change, Cast-23 beside Cast-19) names the group's opset in
    case.json "group_opset", so that it joins its group rather than opening one of its own."""
    p = meta.get("params") or {}
    parts = [f"{p['from']}->{p['to']}"]
    if "saturate" in p:
        parts.append(f"saturate={p['saturate']}")
    if "round_mode" in p:
        parts.append(f"round_mode={p['round_mode']}")
    parts.append(f"opset={meta.get('group_opset') or meta['opset']}")
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

    seen = ("onnxruntime 1.32.0 parses with std::stod (its 'stod' errors on strings beyond double's range: "
            "measured here)" if ft == "double" else "not seen; modelled as strtof / std::stof used for a float target")
    return Fault(f"cast.string_via_{ft}", f"parses the string to {ft} first (strto{'f' if ft == 'float' else 'd'})",
                 _node(kernel), equivalent=equivalent, applies=applies, seen_in=seen)


# ---------------------------------------------------------------------------------------
# issue 21: the axes' faults (present attributes, NaN payloads, opset boundaries, uint64) and the causes
# the baseline's unexplained failures show (onnxruntime 1.32.0, onnx-reference 1.23.2: measured here)
# ---------------------------------------------------------------------------------------
def _fnuz_sat_inf(p) -> bool:
    """FNUZ target, saturate=1, from a source that holds +-Inf: the row Cast-24 changed."""
    src, to, saturate, *_ = _params(p)
    return to.nan_style == dtypes.FNUZ and saturate and (src.kind == "string" or src.is_float and src.has_inf)


def _fnuz_inf_rule_from(first: int):
    """The Cast-24 row (+-Inf -> +-FLT_MAX for FNUZ, saturate=1) applied from opset `first` on."""
    def kernel(x, src, to, saturate, round_mode, opset):
        moved = to.nan_style == dtypes.FNUZ and saturate and first <= opset < 24
        return _cast(x, src, to, saturate, round_mode, 24 if moved else opset)
    return kernel


def _at_24(p) -> str | None:
    return "from Cast-24 on the row is the reference's" if int(p["opset"]) >= 24 else None


def _present_attributes(misread):
    """A node function that reads the attributes the node *writes* through misread(name, value, opset) and
    leaves the absent ones at their defaults: a model that omits them is converted right."""
    def fn(inputs, attrs, opset, input_types):
        a = ref.node_attributes(attrs, opset)
        for name in ("saturate", "round_mode"):
            if name in attrs and (opset >= 19 if name == "saturate" else opset >= 24):
                a[name] = misread(name, a[name])
        to = dtypes.get(int(attrs["to"]))
        return [_cast(np.asarray(inputs[0]), dtypes.get(input_types[0]), to, a["saturate"], a["round_mode"], opset)]
    return fn


def _saturate_misread(name, value):
    return False if name == "saturate" else value


def _round_mode_misread(name, value):
    return "nearest" if name == "round_mode" else value


def _saturate_beyond_float8(inputs, attrs, opset, input_types):
    """A present saturate=1 applied to a float16 / bfloat16 / float32 target too: overflow -> +-FLT_MAX."""
    src, to = dtypes.get(input_types[0]), dtypes.get(int(attrs["to"]))
    a = ref.node_attributes(attrs, opset)
    x = np.asarray(inputs[0])
    y = _cast(x, src, to, a["saturate"], a["round_mode"], opset)
    if "saturate" not in attrs or not a["saturate"] or opset < 19 or not _ieee_wide(to) or src.kind == "string":
        return [y]
    with np.errstate(invalid="ignore"):
        big = np.isinf(y.astype(np.float64)) & ~np.isinf(_values(x, src))
    if big.any():
        y = y.copy()
        y[big] = np.copysign(to.finite_max, y[big].astype(np.float64)).astype(to.np_dtype)
    return [y]


def _ieee_wide(t: DType) -> bool:
    return t.name in ("float16", "bfloat16", "float")


def _present_saturate_applies(p) -> bool:
    to = dtypes.get(p["to"])
    return "saturate" in p and bool(p["saturate"]) and p["from"] not in ("bool",)


def _nan_bits_kind(x, src: DType):
    """(is a NaN, is a signalling NaN) per element, from the bits (IEEE formats: the quiet bit clear)."""
    if not src.is_float:
        z = np.zeros(np.shape(x), dtype=bool)
        return z, z
    nan = src.isnan(np.asarray(x, dtype=src.np_dtype))
    if src.nan_style != dtypes.IEEE:
        return nan, np.zeros_like(nan)
    quiet = np.uint64(1 << (src.mantissa_bits - 1))
    bits = src.to_bits(x).astype(np.uint64)
    return nan, nan & ((bits & quiet) == 0)


def _bf16_round_bias(x, src, to, saturate, round_mode, opset):
    """float32 -> bfloat16 as (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 with no NaN test: RNE for every number,
    but a NaN whose payload sits in the low 16 bits carries into the exponent's neighbour (0x7F800001 -> Inf,
    0x7FFFFFFF -> -0)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if src.name != "float" or to.name != "bfloat16":
        return y
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    nan, _ = _nan_bits_kind(x, src)
    y = y.copy()
    y[nan] = to.from_bits(out[nan].astype(np.uint16))
    return y


def _snan_as_overflow(x, src, to, saturate, round_mode, opset):
    """A signalling NaN (quiet bit clear) taken for a finite value past the target's range (its exponent field
    is all ones, and the NaN test looks at the quiet bit only): +-FLT_MAX with saturation, else what overflow
    gives (Inf, or NaN)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    _, snan = _nan_bits_kind(x, src)
    if not snan.any() or not to.is_float or to.nan_style == dtypes.E8M0:
        return y
    with np.errstate(invalid="ignore"):
        neg = np.signbit(np.asarray(x, dtype=src.np_dtype).astype(np.float64))
    big = np.where(neg, -1.0, 1.0) * (to.finite_max * 2 if math.isfinite(to.finite_max * 2) else math.inf)
    z = _cast(big.astype(np.float64), dtypes.get("double"), to, saturate, round_mode, opset)
    y = y.copy()
    y[snan] = z[snan]
    return y


def _snan_applies(p) -> bool:
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    return src.is_float and src.nan_style == dtypes.IEEE and to.is_float and to.has_nan \
        and to.nan_style != dtypes.E8M0 and src.name != to.name


def _snan_equivalent(p) -> str | None:
    src, to, saturate, *_ = _params(p)
    if to.nan_style in (dtypes.FN, dtypes.FNUZ) and not saturate:
        return f"{to.name} with saturate=0 gives NaN for overflow too"
    return None


_EXACT_IN_FLOAT32 = ("exact in float32, and onnxruntime's float 8 code departs from the table only in the "
                     "saturate=0 E4M3FN / E5M2 top band and the FNUZ +-Inf row before Cast-24, neither of which "
                     "this group reaches (values float32 rounds past the target's range overflow either way; strings "
                     "that round differently through float32 are undefined)")


def _ort_float8_equivalent(p) -> str | None:
    src, to, saturate, _, opset = _params(p)
    if not saturate and to.name in ("float8e4m3fn", "float8e5m2") and _no_overflow(p) is None:
        return None
    if to.nan_style == dtypes.FNUZ and saturate and opset < 24 and (src.kind == "string" or src.is_float and src.has_inf):
        return None
    if src.name == "double":
        return None
    return f"every {src.name} value below the target's range is " + _EXACT_IN_FLOAT32


def _via_float_fnuz_equivalent(p) -> str | None:
    src, to, saturate, _, opset = _params(p)
    if src.name == "double" or saturate and opset < 24 and src.is_float and src.has_inf:
        return None
    return (f"every {src.name} value below {to.name}'s range is exact in float32 (larger integers overflow either "
            f"way), and the +-Inf row is the reference's here")


def _input_nan_sign_lost(x, src, to, saturate, round_mode, opset):
    """A NaN input gives +NaN (a 16-bit float widened to float32 by a ToFloat that returns the canonical quiet
    NaN); NaN made from -Inf keeps its sign."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    nan, _ = _nan_bits_kind(x, src)
    if not nan.any() or not to.is_float or to.negative_nan_bits is None:
        return y
    bits = to.to_bits(y).copy()
    bits[nan & to.isnan(y)] = to.nan_bits
    return to.from_bits(bits)


def _u64_sticky_lost(x, src, to, saturate, round_mode, opset):
    """uint64 >= 2**63 converted as 2 * float(x >> 1): the halving drops the low bit instead of or-ing it back
    in as a sticky bit, so a value just above a tie is rounded as the tie."""
    if src.name != "uint64":
        return _cast(x, src, to, saturate, round_mode, opset)
    a = np.asarray(x, dtype=np.uint64)
    high = a >= np.uint64(1 << 63)
    return _cast(np.where(high, a & ~np.uint64(1), a), src, to, saturate, round_mode, opset)


def _u64_via_int64(x, src, to, saturate, round_mode, opset):
    """uint64 >= 2**63 read as int64, converted to double, then 2**64 added in double (and the double cast to
    the target): two roundings where there should be one."""
    if src.name != "uint64":
        return _cast(x, src, to, saturate, round_mode, opset)
    a = np.asarray(x, dtype=np.uint64)
    high = a >= np.uint64(1 << 63)
    if not high.any():
        return _cast(x, src, to, saturate, round_mode, opset)
    signed = [ref.round_fraction(Fraction(int(v) - (1 << 64)), dtypes.get("double")) for v in a[high].tolist()]
    d = a.astype(np.float64)
    d[high] = [float(ref.round_fraction(s + (1 << 64), dtypes.get("double"))) for s in signed]
    y = _cast(x, src, to, saturate, round_mode, opset)
    y = y.copy()
    y[high] = _cast(d[high], dtypes.get("double"), to, saturate, round_mode, opset)
    return y


def _u64_applies(p) -> bool:
    return p["from"] == "uint64" and _is_rounding_float(dtypes.get(p["to"]))


def _u64_equivalent(p) -> str | None:
    to = dtypes.get(p["to"])
    if to.finite_max < 2.0**63:
        return f"every uint64 >= 2**63 overflows {to.name} either way"
    return None


def _bool_from_bits(x, src, to, saturate, round_mode, opset):
    """float -> bool as 'any bit set': -0 -> True; float8e8m0's 0x00 (2**-127) -> False."""
    if not src.is_float or to.kind != "bool":
        return _cast(x, src, to, saturate, round_mode, opset)
    return src.to_bits(x) != 0


def _float4_max_to_int_max(x, src, to, saturate, round_mode, opset):
    """float4e2m1 -> integer: +-6 (its largest magnitude, where +-Inf saturates to) taken for +-Inf and clamped
    to the integer type's max / min."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if src.name != "float4e2m1" or not to.is_integer:
        return y
    v = _values(x, src)
    top = np.abs(v) == 6.0
    if top.any():
        y = y.copy()
        ext = np.array([to.int_max if e > 0 else to.int_min for e in v[top]], dtype=object).astype(to.np_dtype)
        y[top] = ext
    return y


def _float4_int_equivalent(p) -> str | None:
    to = dtypes.get(p["to"])
    if to.is_integer and to.int_max == 6:
        return "6 is the integer type's max"
    return None


def _via_float32(x, src):
    """The source as float32 (RNE; a string parsed to double first), 16-bit NaNs as the canonical +NaN when
    plus_nan: what a backend that converts every source to float first feeds its float8 code."""
    t = dtypes.get("float")
    if src.kind == "string":
        return _cast(_cast(x, src, dtypes.get("double"), True, "up", 25), dtypes.get("double"), t, True, "up", 25)
    return _cast(x, src, t, True, "up", 25)


def _ort_float8(x, src, to, saturate, round_mode, opset):
    """onnxruntime's CPU Cast to a float 8 type: the source converted to float32 first (a 16-bit NaN as +NaN:
    MLFloat16 / BFloat16 ToFloat), then its float8.h constructors: the Cast-24 FNUZ +-Inf row at every opset,
    E4M3FN saturate=0 gives +-448 for |x| in [480, 496) (the truncated 0x7F is masked to 0x7E before the
    rounding test), E5M2 saturate=0 gives NaN where rounding carries past FLT_MAX (|x| in [61440, 65536))."""
    if not to.is_float8 or src.kind == "bool":
        return _cast(x, src, to, saturate, round_mode, opset)
    f = _via_float32(x, src)
    nan, _ = _nan_bits_kind(x, src)
    if src.bits == 16 and nan.any():
        f = f.copy()
        f[nan] = np.float32(np.nan)
    t = dtypes.get("float")
    y = _cast(f, t, to, saturate, round_mode, 24 if to.nan_style == dtypes.FNUZ else opset).copy()
    a = np.abs(f.astype(np.float64))
    neg = np.signbit(f.astype(np.float64))
    if not saturate and to.name == "float8e4m3fn":
        band = (a >= 480) & (a < 496)
        y[band] = to.from_bits(np.where(neg[band], 0xFE, 0x7E).astype(np.uint8))
    if not saturate and to.name == "float8e5m2":
        band = (a >= 61440) & (a < 65536)
        y[band] = to.from_bits(np.where(neg[band], 0xFF, 0x7F).astype(np.uint8))
    return y


def _e4m3fn_band(x, src, to, saturate, round_mode, opset):
    """float8e4m3fn, saturate=0: |x| in [480, 496) gives +-448 instead of NaN (the rest of the table kept)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "float8e4m3fn" or saturate or src.kind in ("string", "bool"):
        return y
    v = _values(x, src)
    band = (np.abs(v) >= 480) & (np.abs(v) < 496)
    y = y.copy()
    y[band] = to.from_bits(np.where(np.signbit(v[band]), 0xFE, 0x7E).astype(np.uint8))
    return y


def _e5m2_carry_nan(x, src, to, saturate, round_mode, opset):
    """float8e5m2, saturate=0: a value whose rounding carries past FLT_MAX (|x| in [61440, 65536)) gives NaN;
    larger ones give Inf as the table says."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "float8e5m2" or saturate or src.kind in ("string", "bool"):
        return y
    v = _values(x, src)
    band = (np.abs(v) >= 61440) & (np.abs(v) < 65536)
    y = y.copy()
    y[band] = to.from_bits(np.where(np.signbit(v[band]), 0xFF, 0x7F).astype(np.uint8))
    return y


def _via_float_fnuz_inf_24(x, src, to, saturate, round_mode, opset):
    """Through float32, then the target with the Cast-24 FNUZ +-Inf row at every opset."""
    if src.kind in ("string", "bool") or not to.is_float8:
        return _cast(x, src, to, saturate, round_mode, opset)
    t = dtypes.get("float")
    f = _cast(x, src, t, True, "nearest", opset)
    return _cast(f, t, to, saturate, round_mode, 24 if to.nan_style == dtypes.FNUZ else opset)


def _onnx_e8m0(x, src, to, saturate, round_mode, opset, mask=0x7FFFFF):
    """float8e8m0 as onnx.numpy_helper.to_float8e8m0 computes it (onnx 1.23.2): the source converted to float32,
    the result taken from its exponent field (Inf / NaN -> 0xFF; a subnormal float32 has field 0, and up /
    nearest add 1 to it for any fraction); up adds 1 when (bits & mask) != 0; nearest by guard / round / sticky
    bits; saturate only keeps 0xFE from rounding to 0xFF; no NaN for 0 or out of range."""
    if to.nan_style != dtypes.E8M0:
        return _cast(x, src, to, saturate, round_mode, opset)
    f = _via_float32(x, src).astype(np.float32)
    b = f.view(np.uint32).astype(np.int64)
    e = (b >> 23) & 0xFF
    special = e == 0xFF
    if round_mode == "nearest":
        g, r, s = (b & 0x400000) > 0, (b & 0x200000) > 0, (b & 0x1FFFFF) > 0
        up = g & (r | s | (e > 0)) & ~special
    elif round_mode == "up":
        up = ((b & mask) > 0) & ~special
    else:
        up = np.zeros_like(special)
    if saturate:
        up &= e != 0xFE
    out = np.where(special, 0xFF, (e + up) & 0xFF).astype(np.uint8)
    return to.from_bits(out)


def _onnx_e8m0_string_equivalent(p) -> str | None:
    if p["from"] == "string" and p.get("saturate") == 0 and p.get("round_mode") == "up":
        return ("string, saturate=0, up: in range, up on the float32 parse decides as up on the value wherever "
                "the two parses agree (elsewhere the string is undefined: UNDEF_STRING_ROUNDING); above E8M0_MAX "
                "both give NaN; below E8M0_MIN, 0 and negative values are undefined")
    return None


def _e8m0_onnx_applies(p) -> bool:
    return dtypes.get(p["to"]).nan_style == dtypes.E8M0


def _double_to_string_8_digits(x, src, to, saturate, round_mode, opset):
    """double -> string with 8 significant digits ('%.8g'), the precision of a float32 format."""
    if src.name != "double" or to.kind != "string":
        return _cast(x, src, to, saturate, round_mode, opset)
    out = ["%.8g" % float(v) for v in np.asarray(x, dtype=np.float64).ravel()]
    return np.array(out, dtype=object).reshape(np.shape(x))


# ---------------------------------------------------------------------------------------
# OpenVINO 2026.4.1 CPU (measured here on the issue 21 suite of the cast family)
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------
def _numeric(p) -> bool:
    return p["from"] != "string" and p["to"] != "string"


def _float_source(p) -> bool:
    return dtypes.get(p["from"]).is_float and p["to"] != "string"


def _as_float32_bits_kept(x, src: DType) -> np.ndarray:
    """The source as float32: float types of <= 32 bits exactly, NaN payloads kept (a widening keeps the bits
    a converter shifts); the others as the reference rounds them (_via_float32)."""
    if src.is_float and src.bits <= 32 and src.name not in f8bits.TYPES:
        return np.asarray(x).astype(np.float32)
    return _via_float32(x, src)


def _float8_bitwise(x, src, to, saturate, round_mode, opset):
    """float 8 conversions by bit arithmetic without special cases (generator/reference/float8_bitwise.py): the
    source as float32 (a float 8 source decoded as a normal number), encoded into a float 8 target with the FN /
    IEEE layout and bias for the FNUZ types too, saturate and round_mode ignored (e8m0 rounds its exponent field
    to nearest even); other targets from that float32 as the reference converts it."""
    f = f8bits.decode(src.to_bits(x), src.name) if src.name in f8bits.TYPES else _as_float32_bits_kept(x, src)
    if to.name in f8bits.TYPES:
        return to.from_bits(f8bits.encode(f, to.name))
    return _cast(f, dtypes.get("float"), to, saturate, round_mode, opset)


def _float8_bitwise_applies(p) -> bool:
    return p["from"] != p["to"] and "string" not in (p["from"], p["to"]) and (
        p["from"] in f8bits.TYPES or p["to"] in f8bits.TYPES)


def _float8_bitwise_equivalent(p) -> str | None:
    """Every value of a source of <= 16 bits enumerated: the fault's defined results are the reference's."""
    src, to, saturate, round_mode, opset = _params(p)
    if src.bits > 16 or not src.is_numeric:
        return None
    x = src.all_values()
    o = _outcome(x, src, to, saturate, round_mode, opset)
    same = same_elements(o.outputs[0], _float8_bitwise(x, src, to, saturate, round_mode, opset), to) | o.mask()
    return f"every {src.name} value enumerated: the defined results agree" if same.all() else None


FAULTS: tuple[Fault, ...] = (
    *(_via(t) for t in INTERMEDIATES),
    _tie_rule("half_away", "rounds ties away from zero instead of to even",
              "OpenVINO (integer and f8 paths), onnxruntime 1.32.0 (float -> int4 / uint4 / int2 / uint2)"),
    _tie_rule("half_up", "rounds ties toward +inf instead of to even",
              "onnxruntime 1.32.0: 67 failing items consistent with it (float -> int4 / uint4, where it is "
              "indistinguishable from half away on the positive ties; baseline of issue 21, measured here)"),
    _tie_rule("toward_zero", "truncates toward zero instead of rounding to nearest even",
              "onnx-reference 1.23.2 (float -> int4 / uint4 / int2 / uint2 through ml_dtypes)"),
    Fault("cast.subbyte_add_half_float32", "float -> int4 / uint4 / int2 / uint2 as trunc(x +- 0.5) in float32 "
          "(half away from zero, and 0.49999997 -> 1; a double rounded to float32 first)",
          _node(_subbyte_add_half_float32), seen_in="OpenVINO 2026.4.1 (float -> int4 / uint4)",
          applies=lambda p: _subbyte_from_float(dtypes.get(p["from"]), dtypes.get(p["to"]))),
    Fault("cast.int_round_nearest_even", "float -> int8..uint64 rounds to nearest even instead of truncating toward "
          "zero (cvtps2dq for cvttps2dq; the int4 / int2 notes' rule taken for every integer)",
          _node(_int_round_nearest_even), applies=_truncating_pair,
          seen_in="not seen; modelled as x86's cvtps2dq (current rounding mode) used where cvttps2dq (truncation) "
                  "was meant, and as the int4 notes' rule applied to every integer type"),
    _saturate_flipped(always=False),
    _saturate_flipped(always=True),
    Fault("cast.overflow_on_x", "decides overflow on x instead of the rounded [x] (FLT_MAX < x < FLT_MAX + ulp/2 "
          "overflows)", _node(_overflow_on_x_kernel), equivalent=_overflow_on_x_equivalent,
          seen_in="not seen; modelled as a range check on the source value before rounding (x > FLT_MAX), the "
                  "order Cast's float 8 tables warn against by writing [x]",
          applies=lambda p: _numeric(p) and _is_rounding_float(dtypes.get(p["to"])) and p["to"] != "double"
          and not dtypes.get(p["from"]).kind == "bool"),
    Fault("cast.e5m2_overflow_nan", "float8e5m2, saturate=0: a finite value beyond FLT_MAX gives NaN instead of "
          "Inf", _node(_overflow_to_nan), seen_in="onnxruntime 1.31",
          applies=lambda p: p["to"] == "float8e5m2" and p.get("saturate") == 0, equivalent=_no_overflow),
    Fault("cast.e8m0_range_on_rounded", "float8e8m0, nearest, saturate=0: decides out of range on [x] instead of x "
          "as the table does", _node(_e8m0_range_on_rounded_kernel),
          seen_in="not seen; modelled as the range test done after rounding, as every other float 8 row is",
          applies=lambda p: _e8m0(p) and p.get("saturate") == 0 and p.get("round_mode") == "nearest",
          equivalent=lambda p: "an integer is 0 or lies in [1, 2**64): never just outside E8M0's range"
          if dtypes.get(p["from"]).is_integer or p["from"] == "bool" else None),
    Fault("cast.negative_zero_lost", "gives +0 where the result is -0", _node(_neg_zero_lost),
          seen_in="not seen; modelled as a conversion through an integer or a sign-magnitude split that drops "
                  "the sign of a zero result",
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).is_float
          and dtypes.get(p["to"]).has_negative_zero),
    Fault("cast.nan_sign_lost", "gives +NaN where the result is -NaN", _node(_nan_sign_lost),
          seen_in="onnxruntime 1.32.0: 1 failing item consistent with it (baseline of issue 21, measured here)",
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).negative_nan_bits is not None,
          equivalent=lambda p: None if (p.get("saturate") == 0 and dtypes.get(p["to"]).is_float8
                                        and dtypes.get(p["from"]).negative_nan_bits is not None) else
          "the spec states the sign of NaN only in the saturate=0 float8 rows; elsewhere it is not compared"),
    Fault("cast.ftz_source", "flushes subnormal inputs to zero before converting", _node(_ftz_source),
          seen_in="onnx-reference 1.23.2: 1 failing item consistent with it (baseline of issue 21, measured "
                  "here); also x86 DAZ / ARM FZ modes left on by a library",
          applies=lambda p: _float_source(p) and p["from"] not in ("float8e8m0",), equivalent=_ftz_source_equivalent),
    Fault("cast.ftz_result", "flushes subnormal results to zero", _node(_ftz_result),
          seen_in="not seen; modelled as x86 FTZ / ARM FZ left on by a library (results below the smallest normal "
                  "become 0)",
          applies=lambda p: p["from"] != "string" and _is_rounding_float(dtypes.get(p["to"])),
          equivalent=_ftz_result_equivalent),
    Fault("cast.int_saturate", "integer -> narrower integer saturates instead of wrapping (two's complement)",
          _node(_int_saturating),
          seen_in="not seen; modelled as a saturating narrowing instruction (x86 packsswb / ARM sqxtn) used for "
                  "a wrapping conversion",
          applies=lambda p: (dtypes.get(p["from"]).is_integer or p["from"] == "bool") and dtypes.get(p["to"]).is_integer,
          equivalent=lambda p: f"every {p['from']} value fits {p['to']}"
          if _fits(dtypes.get(p["from"]), dtypes.get(p["to"])) else None),
    Fault("cast.e8m0_log2", "float8e8m0: the power of two chosen from log2(x) computed in float32 (float64 for "
          "64-bit sources), not from the value", _node(_e8m0_kernel(_log2_choice)), applies=_e8m0,
          seen_in="onnxruntime 1.32.0 (29 failing items) and onnx-reference 1.23.2 (18) consistent with it "
                  "(baseline of issue 21, measured here)"),
    Fault("cast.e8m0_up_exponent", "float8e8m0, round_mode up: 2**(exponent + 1) even for an exact power of two",
          _node(_e8m0_kernel(_exponent_up_choice)), applies=lambda p: _e8m0(p) and p.get("round_mode") == "up",
          seen_in="onnx-reference 1.23.2: 2 failing items consistent with it (baseline of issue 21, measured here)"),
    Fault("cast.e8m0_nearest_ties_even", "float8e8m0, round_mode nearest: ties (1.5 * 2**k) to the even exponent "
          "instead of up", _node(_e8m0_kernel(_ties_even_choice)),
          seen_in="not seen; modelled as the IEEE default (ties to even) used where the table says ties up",
          applies=lambda p: _e8m0(p) and p.get("round_mode") == "nearest"),
    _string_via("float"),
    _string_via("double"),
    # opset boundaries: the FNUZ +-Inf row of Cast-24
    Fault("cast.fnuz_inf_saturates_before_24", "FNUZ, saturate=1: +-Inf -> +-FLT_MAX (the Cast-24 row) at "
          "Cast-19..23 too, where the row is NaN", _node(_fnuz_inf_rule_from(19)), applies=_fnuz_sat_inf,
          equivalent=_at_24, seen_in="onnxruntime 1.32.0 and onnx-reference 1.23.2: every inf_opset19 case "
          "(baseline of issue 21, measured here)"),
    Fault("cast.fnuz_inf_rule_at_23", "FNUZ, saturate=1: the Cast-24 +-Inf row switched on one opset early "
          "(Cast-23)", _node(_fnuz_inf_rule_from(23)), applies=_fnuz_sat_inf, equivalent=_at_24,
          seen_in="not seen; modelled as a version check written `opset >= 23` for the rule of Cast-24 (an "
                  "off-by-one at the opset boundary; float4e2m1 came at 23)"),
    # explicit defaults: attributes the model writes
    Fault("cast.present_saturate_read_as_0", "a saturate attribute the model writes is read as 0 (a model that "
          "leaves it out gets the default 1)", _present_attributes(_saturate_misread),
          applies=lambda p: _present_saturate_applies(p) and (dtypes.get(p["to"]).is_float8
                                                              or dtypes.get(p["to"]).nan_style == dtypes.E8M0),
          seen_in="not seen; modelled as an attribute read through the wrong accessor (its value dropped, 0 "
                  "kept) only when present, the code path no model without the attribute reaches"),
    Fault("cast.present_round_mode_as_nearest", "a round_mode attribute the model writes is read as 'nearest' "
          "whatever it says (a model that leaves it out gets up)", _present_attributes(_round_mode_misread),
          applies=lambda p: _e8m0(p) and p.get("round_mode") != "nearest",
          seen_in="not seen; modelled as a string attribute mapped to an enum by a table that misses its value and "
                  "falls back to round-to-nearest"),
    Fault("cast.present_saturate_beyond_float8", "a saturate=1 the model writes is applied to a float16 / "
          "bfloat16 / float32 target too: overflow gives +-FLT_MAX instead of +-Inf",
          _saturate_beyond_float8, applies=lambda p: _ieee_wide(dtypes.get(p["to"])) and p["from"] not in ("bool", "string")
          and int(p["opset"]) >= 13, equivalent=_no_overflow,
          seen_in="not seen; modelled as one saturating conversion routine shared by every float target once the "
                  "attribute is present (saturate 'only applies for float 8 conversion')"),
    # NaN payloads
    Fault("cast.bf16_round_bias_nan", "float32 -> bfloat16 by add-and-shift ((bits + 0x7FFF + lsb) >> 16) with no "
          "NaN test: a NaN whose payload is in the low 16 bits becomes Inf (or -0)", _node(_bf16_round_bias),
          applies=lambda p: p["from"] == "float" and p["to"] == "bfloat16",
          seen_in="not seen in a backend measured here; modelled on the common float32 -> bfloat16 rounding "
                  "snippet (round-bias add, then truncation) whose NaN test is left out, as in hand-written "
                  "kernels that assume finite inputs"),
    Fault("cast.snan_as_overflow", "a signalling NaN (quiet bit clear) converts as a finite value beyond the "
          "target's range: +-FLT_MAX with saturation, else Inf / NaN", _node(_snan_as_overflow),
          applies=_snan_applies, equivalent=_snan_equivalent,
          seen_in="not seen in a backend measured here; modelled on float 8 conversion code whose NaN test is "
                  "(b & 0x7FC00000) == 0x7FC00000 (quiet NaNs only): a signalling NaN falls to the overflow "
                  "branch (an onnxruntime float8.h review, onnxruntime#16940, noted that signalling NaNs need the "
                  "full test)"),
    Fault("cast.input_nan_sign_lost", "a NaN input gives +NaN (a NaN made from -Inf keeps its sign)",
          _node(_input_nan_sign_lost),
          applies=lambda p: _float_source(p) and dtypes.get(p["from"]).negative_nan_bits is not None
          and dtypes.get(p["to"]).negative_nan_bits is not None,
          equivalent=lambda p: None if (p.get("saturate") == 0 and dtypes.get(p["to"]).is_float8) else
          "the spec states the sign of NaN only in the saturate=0 float8 rows; elsewhere it is not compared",
          seen_in="onnxruntime 1.32.0 (bfloat16 -> float8e4m3fn, saturate=0: -NaN -> +NaN, -Inf -> -NaN; its "
                  "BFloat16::ToFloat returns the canonical quiet NaN; measured here)"),
    # uint64 double rounding
    Fault("cast.u64_sticky_lost", "uint64 >= 2**63 converted as 2 * float(x >> 1) without or-ing the low bit back "
          "(double rounding)", _node(_u64_sticky_lost), applies=_u64_applies, equivalent=_u64_equivalent,
          seen_in="not seen; modelled as the textbook unsigned-to-float sequence (shift right, convert signed, "
                  "add to itself) written without its `| (x & 1)` sticky bit"),
    Fault("cast.u64_via_int64", "uint64 >= 2**63 converted as double(int64(x)) + 2**64 in double (two roundings)",
          _node(_u64_via_int64), applies=_u64_applies, equivalent=_u64_equivalent,
          seen_in="not seen; modelled as the signed-conversion-plus-bias sequence for unsigned 64-bit inputs on "
                  "targets without an unsigned convert instruction"),
    # causes of the baseline's unexplained failures
    Fault("cast.ort_float8", "onnxruntime's float 8 path: the source through float32 (16-bit NaN -> +NaN), the "
          "Cast-24 FNUZ +-Inf row at every opset, E4M3FN saturate=0 |x| in [480, 496) -> +-448, E5M2 saturate=0 "
          "|x| in [61440, 65536) -> NaN", _node(_ort_float8),
          applies=lambda p: dtypes.get(p["to"]).is_float8 and p["from"] != "bool", equivalent=_ort_float8_equivalent,
          seen_in="onnxruntime 1.32.0 CPU (include/onnxruntime/core/framework/float8.h; measured here: the "
                  "float8 items of the issue 21 baseline that matched no fault)"),
    Fault("cast.e4m3fn_nosat_480", "float8e4m3fn, saturate=0: |x| in [480, 496) gives +-448 instead of NaN "
          "(saturate=0 treated as 1 there)", _node(_e4m3fn_band),
          applies=lambda p: p["to"] == "float8e4m3fn" and p.get("saturate") == 0 and p["from"] not in ("string", "bool"),
          equivalent=_no_overflow, seen_in="onnxruntime 1.32.0 (bfloat16 / float16 / float32 / integers -> "
          "float8e4m3fn: 480 -> 448; measured here)"),
    Fault("cast.e5m2_nosat_carry_nan", "float8e5m2, saturate=0: a value whose rounding carries past FLT_MAX "
          "(|x| in [61440, 65536)) gives NaN instead of Inf", _node(_e5m2_carry_nan),
          applies=lambda p: p["to"] == "float8e5m2" and p.get("saturate") == 0 and p["from"] not in ("string", "bool"),
          equivalent=_no_overflow, seen_in="onnxruntime 1.32.0 (bfloat16 / float32 / integers -> float8e5m2: "
          "61440 -> NaN; measured here)"),
    Fault("cast.via_float_fnuz_inf_24", "through float32, then the target with the Cast-24 FNUZ +-Inf row at "
          "every opset", _node(_via_float_fnuz_inf_24),
          applies=lambda p: dtypes.get(p["to"]).nan_style == dtypes.FNUZ and p["from"] not in ("string", "bool")
          and _wider(dtypes.get("float"), dtypes.get(p["to"])), equivalent=_via_float_fnuz_equivalent,
          seen_in="onnxruntime 1.32.0 and onnx-reference 1.23.2 (float64 -> float8e4m3fnuz / e5m2fnuz; measured "
                  "here)"),
    Fault("cast.e8m0_onnx_bits", "float8e8m0 from the float32 exponent field as onnx.numpy_helper.to_float8e8m0 "
          "does: a subnormal rounds up to 2**-126, Inf -> NaN, no NaN for 0 or out of range",
          _node(_onnx_e8m0), applies=_e8m0_onnx_applies, equivalent=_onnx_e8m0_string_equivalent,
          seen_in="onnx-reference 1.23.2 (reference/ops/op_cast.py -> numpy_helper.to_float8e8m0; measured here)"),
    Fault("cast.e8m0_up_mask_0x4fffff", "float8e8m0, round_mode up: the fraction tested with mask 0x4FFFFF, so "
          "1.125 and 1.25 stay 1 (and the rest of onnx's to_float8e8m0)",
          _node(lambda x, src, to, sat, mode, opset: _onnx_e8m0(x, src, to, sat, mode, opset, mask=0x4FFFFF)),
          applies=lambda p: _e8m0_onnx_applies(p) and p.get("round_mode") == "up",
          seen_in="onnx's numpy_helper.to_float8e8m0 before onnx#7784 (merged 2026-05-06), the reference "
                  "evaluator's Cast to float8e8m0"),
    Fault("cast.float8_bitwise", "float 8 by bit arithmetic without special cases: FNUZ types with the FN / IEEE "
          "layout's bias (1.0 -> 0x38), exponent overflow wrapping into the sign (FLT_MAX -> 1.0), -0 -> +0, float 8 "
          "sources read as normal numbers (0x00 -> 2**-bias), saturate and round_mode ignored (e8m0: exponent field "
          "to nearest even)", _node(_float8_bitwise), applies=_float8_bitwise_applies,
          equivalent=_float8_bitwise_equivalent,
          seen_in="TVM 0.27.0.post1 llvm (measured here: every float 8 encoding and 2,016 float32 values into each "
                  "float 8 type reproduced bit for bit; chains.float8_bitwise_normal_only and "
                  "convert_promote_types.float8_decoded_as_normals are its parts in those families)"),
    Fault("cast.bool_from_bits", "float -> bool as 'any bit set': -0 -> True, float8e8m0 0x00 (2**-127) -> False",
          _node(_bool_from_bits), applies=lambda p: dtypes.get(p["from"]).is_float and p["to"] == "bool",
          seen_in="onnxruntime 1.32.0 (float8e4m3fn / float8e5m2 -0 -> True, float8e8m0 0x00 -> False; "
                  "measured here)"),
    Fault("cast.double_to_string_8_digits", "double -> string with 8 significant digits ('%.8g'): the text does "
          "not read back to the value", _node(_double_to_string_8_digits),
          applies=lambda p: p["from"] == "double" and p["to"] == "string",
          seen_in="onnxruntime 1.32.0 (1.7976931348623157e308 -> '1.7976931e+308'; measured here)"),
    Fault("cast.ov_e8m0_nearest_even_field", "float8e8m0 from the float32 exponent field rounded to nearest, "
          "ties to an even field, whatever round_mode / saturate say (0 -> 0x00, Inf -> 0xFE)", _node(_ov_e8m0),
          applies=lambda p: _e8m0_onnx_applies(p) and p["from"] != "string", seen_in=_OV),
    Fault("cast.ov_float8_via_f16_saturate_ignored", "float8e4m3fn / e5m2 through float16, saturate ignored "
          "(overflow -> NaN / Inf)", _node(_ov_float8),
          applies=lambda p: p["to"] in ("float8e4m3fn", "float8e5m2") and p["from"] not in ("string", "bool"),
          equivalent=lambda p: "integers below 2048 are exact in float16 and every larger one overflows "
          "float8e4m3fn (NaN with saturate=0) either way" if p["to"] == "float8e4m3fn" and p.get("saturate") == 0
          and dtypes.get(p["from"]).is_integer else None, seen_in=_OV),
    Fault("cast.ov_bf16_truncate", "float -> bfloat16 by truncating the float32 bits (NaN -> Inf, subnormals -> "
          "0, doubles clamped to FLT_MAX)", _node(_ov_bf16),
          applies=lambda p: p["to"] == "bfloat16" and dtypes.get(p["from"]).is_float and p["from"] != "bfloat16",
          seen_in=_OV),
    Fault("cast.ov_f64_via_f32", "-> double through float32, +-Inf -> +-FLT_MAX of float32", _node(_ov_f64),
          applies=lambda p: p["to"] == "double" and p["from"] not in ("string", "bool"),
          seen_in=_OV + "; the issue's 'OpenVINO bf16 -> f64'"),
    Fault("cast.ov_int64_as_int32", "64-bit integers handled as int32 (low 32 bits, signed); float -> 64-bit / "
          "uint32 through int32", _node(_ov_int32),
          applies=lambda p: dtypes.get(p["to"]).is_integer and p["from"] not in ("string", "bool") and (
              dtypes.get(p["to"]).bits == 64 or dtypes.get(p["from"]).is_float and p["to"] == "uint32"),
          equivalent=lambda p: f"every {p['from']} value is its own int32" if dtypes.get(p["from"]).is_integer
          and -(2**31) <= dtypes.get(p["from"]).int_min and dtypes.get(p["from"]).int_max < 2**31 else None,
          seen_in=_OV),
    Fault("cast.float4_max_to_int_max", "float4e2m1 -> integer: +-6 gives the integer type's max / min (taken "
          "for +-Inf)", _node(_float4_max_to_int_max),
          applies=lambda p: p["from"] == "float4e2m1" and dtypes.get(p["to"]).is_integer,
          equivalent=_float4_int_equivalent,
          seen_in="XLA CPU (jax), as the issue 21 brief names it; not reproduced here"),
)
