"""ONNX Cast, written from ../shared/spec/Cast.txt and the ONNX technical notes it refers to.

Sources of each rule (cited in the docstrings below as [Cast] and [note]):
  [Cast]     ../shared/spec/Cast.txt and onnx.defs Cast-19..28: the general rules ("Casting from
             floating point to: ..."), the string rules, the two float8 tables (saturate = 1 / 0),
             the float8e8m0 table and round_mode (Cast-24).
  [Cast-24]  from Cast-24 on, saturate=1 maps +-Inf to +-FLT_MAX for the FNUZ types too
             (Cast-19..23: NaN). See ../shared/spec/README.md.
  [float4]   ONNX docs/technical/float4.md, "Cast": RNE, saturating at +-6; +-Inf -> +-6; "x=+/-0 ->
             +/-0". Its "NaN -> 6" is contradicted by ONNX's own Cast tests (-0): NaN is undefined.
  [float6]   ONNX docs/technical/float6.md, "Cast" (Cast-28), revision of onnx PR #8349 (c93be5d,
             2026-08-22; the text onnx.ai publishes, the one onnx 1.23.2's FLOAT6 code goes with):
             "Downcasting RNE with saturation"; its table: "-0.0 -> -0.0", "inf -> 7.5 / 28.0 (sat)",
             "nan -> -0.0 (unspecified ...)". (Its first revisions, PR #7145 939b180..3af4e06, gave
             -0.0 -> 0.0.)
  [int4]     ONNX docs/technical/int4.md / int2.md, "Cast": "Cast to a 4 bit type [2 bit type] is done
             by rounding to the nearest-integer (with ties to even) nearest-even integer and
             truncating." Cast itself states no rounding for floating point -> fixed point, so this is
             the one text that does: fractions -> int4/uint4/int2/uint2 round to nearest even. Out of
             range stays undefined ([Cast]: "fixed point: undefined if OOR"; the note's "and
             truncating" does not settle it: see UNDEF_FLOAT_TO_SUBBYTE_OOR).

cast_outcome() is the operator under the reference contract (generator/outcome.py): the output, and the
elements the spec leaves undefined by reason (they go to probe cases); explain() adds `reading`: per
element, "" where a sentence of the texts gives the result, else the READING_* that the result rests on
(docs/readings.md lists them). Every module of generator/ and runners/ reads Cast that way. cast() /
cast_explained() give the same as arrays (y, why[, reading]), why "" where the spec defines the element:
only tests use them (element-wise assertions on why), and new code should not.

Vectorized path: every float value of every supported source is exact in float64, so a float
source is widened to float64 and rounded once (round-to-nearest-even with an unbounded exponent,
so "[x] > FLT_MAX" is decided on the rounded value as the tables say). Values that float64 cannot
hold exactly (int64 / uint64 beyond 2**53, decimal strings) go through exact Fraction arithmetic
and are mapped to a float64 "representative" that the vectorized path treats identically.
"""

from __future__ import annotations

import decimal
import re
from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome

ROUND_MODES = ("up", "down", "nearest")

# Reasons for undefined elements (they name the spec sentence that leaves the result open).
UNDEF_FLOAT_TO_INT_OOR = "float -> integer out of range [Cast: fixed point: undefined if OOR]"
UNDEF_NAN_TO_INT = "NaN / Inf -> integer [Cast: fixed point: undefined if OOR]"
UNDEF_FLOAT_TO_SUBBYTE_OOR = ("float -> int4/uint4/int2/uint2 out of range [Cast: fixed point: undefined if OOR; "
                              "the int4/int2 notes' 'and truncating' is read by ONNX itself both as clipping "
                              "(onnx 1.16's float32_to_4bit_unpacked) and as wrapping (its tests, through ml_dtypes)]")
UNDEF_E8M0_NEGATIVE = "negative or -0 -> float8e8m0 [Cast-24 table: Unspecified]"
UNDEF_E8M0_RANGE = ("out of range -> float8e8m0 with saturate=0, round_mode up (below E8M0_MIN) or down "
                    "(above E8M0_MAX) [Cast-24 table covers only nearest; x and [x] disagree]")
UNDEF_FLOAT4_NAN = ("NaN -> float4e2m1 [ONNX's float4 note gives 6; ONNX's own Cast tests expect -0; "
                    "the type has no NaN]")
UNDEF_FLOAT6_NAN = ("NaN -> float6e2m3 / float6e3m2 [float6 note: 'nan -> -0.0 (unspecified ...)'; "
                    "the type has no NaN]")
UNDEF_STRING_SYNTAX = "not a numeric literal of the spec [Cast: non-numerical-literal string is undefined]"
UNDEF_STRING_FRACTION_TO_INT = "fractional or scientific string -> integer [Cast: undefined]"
UNDEF_STRING_INT_OOR = "integer string out of the target's range [Cast: fixed point undefined if OOR]"
UNDEF_STRING_TO_BOOL = "string -> bool [Cast defines no string -> bool rule]"
UNDEF_STRING_ROUNDING = ("decimal string whose value rounds differently when parsed to float32 / "
                         "float64 first [Cast fixes no rounding path for strings]")
UNDEF_BOOL_TO_STRING = "bool -> string [Cast defines number -> string only]"
UNDEF_NONFINITE_TO_STRING = "NaN / Inf -> string [Cast: 'plain floating-point representation' has none]"

# Readings: results that no sentence of the texts states, read from them as each says (docs/readings.md
# gives the reasons at length). Node cases whose expected outputs rest on one name it in case.json "reading".
READING_TRUNCATION = ("float -> int8..uint64 truncates fractions toward zero: Cast states no rounding there; read as "
                      "C's conversion, which ONNX's reference and every backend tested do (docs/readings.md#truncation)")
READING_IEEE_RNE = ("float16 / bfloat16 / float32 / float64 targets round to nearest, ties to even, overflow decided on "
                    "the rounded value: Cast says only 'may be round'; read as IEEE 754's default rounding, the RNE of "
                    "Cast's float 8 tables (docs/readings.md#ieee-rne)")
READING_E8M0_SATURATE = ("float8e8m0, saturate=1: the Cast-24 table states only round_mode up, and 0 -> '0'; read as "
                         "E8M0_MIN / E8M0_MAX out of range for every round_mode, and '0' as 0x00 = E8M0_MIN "
                         "(docs/readings.md#e8m0-saturate)")
READING_E8M0_NOSAT = ("float8e8m0, saturate=0, round_mode up / down: the Cast-24 table states only nearest; its NaN "
                      "rows are read to hold where rounding cannot bring x back into range (docs/readings.md#e8m0-nosat)")
READING_STRING_TO_INT = ("integer string -> integer type gives its value: Cast states string -> float only, with "
                         "'100.5' -> 100 as an integer example (docs/readings.md#string-to-int)")
READING_NUMBER_TO_STRING = ("number -> string: any text that reads back to the source value; 'plain floating-point "
                            "representation' fixes no digits (docs/readings.md#number-to-string)")
READING_STRING_NEGATIVE_INF = ("'-inf' in any case but '-INF' -> -Inf: Cast states '-INF' and names the "
                               "case-insensitive rule for '+INF', 'INF' and 'NaN' only; read as the same rule for "
                               "'-INF' (its sign on 'INF', which matches case-insensitively) "
                               "(docs/readings.md#string-negative-inf)")
READING_STRING_BEYOND_DOUBLE = ("a decimal string beyond float64's normal range ('1e400', '1e-400') converts by the "
                                "value it denotes (overflow and underflow as for any value): Cast names no parsing "
                                "type; read as the text's value, not as a strtod range error "
                                "(docs/readings.md#string-beyond-double)")
READING_SAME_TYPE_SATURATE = ("float8e5m2 -> float8e5m2 with saturate=1: +-Inf -> +-FLT_MAX by the table's Inf row; "
                              "Cast does not exempt a cast to the same type, and its table is written for any float "
                              "x (docs/readings.md#same-type-saturate)")
READINGS = (READING_TRUNCATION, READING_IEEE_RNE, READING_E8M0_SATURATE, READING_E8M0_NOSAT,
            READING_STRING_TO_INT, READING_NUMBER_TO_STRING, READING_STRING_NEGATIVE_INF,
            READING_STRING_BEYOND_DOUBLE, READING_SAME_TYPE_SATURATE)


# ---------------------------------------------------------------------------------------
# rounding primitives
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# float targets
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# integer and bool targets
# ---------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------------------
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # ASCII digits only
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_SPECIAL = {"+INF": float("inf"), "INF": float("inf"), "-INF": float("-inf"), "NAN": float("nan")}


def parse_number(s: str) -> Fraction | float | None:
    """A string as Cast reads it [Cast]: plain or scientific decimal -> exact Fraction;
    "+INF", "INF", "-INF", "NaN" matched case-insensitively -> float inf / nan; anything
    else -> None (undefined)."""
    if not isinstance(s, str):
        s = s.decode("utf-8", "replace")
    special = _SPECIAL.get(s.upper()) if s.isascii() else None  # "\u0131nf".upper() == "INF"
    if special is not None:
        return special
    if not _NUMBER.fullmatch(s):
        return None
    d = decimal.Decimal(s)
    if d.is_zero():
        return Fraction(0) if not d.is_signed() else -0.0  # keep the sign of "-0"
    # clamp absurd exponents: every target decides 1e1100 like 1e99999999 (and tiny alike)
    adj = d.adjusted()
    if adj > 1100 or adj < -1100:
        d = d.scaleb(max(min(adj, 1100), -1100) - adj)
    return Fraction(d)


def _from_strings(x: np.ndarray, to: DType, saturate: bool, round_mode: str, opset: int):
    flat = [s if isinstance(s, str) else s.decode("utf-8", "replace") for s in np.asarray(x, dtype=object).ravel()]
    shape = np.shape(x)
    why = np.full(len(flat), "", dtype=object)
    reading = np.full(len(flat), "", dtype=object)
    if to.kind == "string":
        return np.array(flat, dtype=object).reshape(shape), why.reshape(shape), reading.reshape(shape)
    if to.kind == "bool":
        why[:] = UNDEF_STRING_TO_BOOL
        return np.zeros(shape, dtype=bool), why.reshape(shape), reading.reshape(shape)
    parsed = [parse_number(s) for s in flat]
    if to.kind in ("int", "uint"):
        vals = []
        for i, (s, p) in enumerate(zip(flat, parsed)):
            if p is None:
                why[i] = UNDEF_STRING_SYNTAX
            elif not _INTEGER.fullmatch(s):
                why[i] = UNDEF_STRING_FRACTION_TO_INT
            elif not to.int_min <= int(s) <= to.int_max:
                why[i] = UNDEF_STRING_INT_OOR
            vals.append(int(s) if why[i] == "" else 0)
        reading[why == ""] = READING_STRING_TO_INT
        return _wrap(np.array(vals, dtype=object).reshape(shape), to), why.reshape(shape), reading.reshape(shape)
    # float targets: the exact decimal value rounded once; flag where parsing to float32 or
    # float64 first (what strtof / strtod based code does) would round differently.
    reps, via64, via32 = [], [], []
    for i, p in enumerate(parsed):
        if p is None:
            why[i] = UNDEF_STRING_SYNTAX
            reps.append(0.0), via64.append(0.0), via32.append(0.0)
        elif isinstance(p, float):
            reps.append(p), via64.append(p), via32.append(p)
        else:
            reps.append(representative(p, to, round_mode))
            via64.append(_parsed_as(p, dtypes.get("double")))
            via32.append(_parsed_as(p, dtypes.get("float")))
    y, why2, reading = _to_float(np.array(reps), to, saturate, round_mode, opset)
    why = np.where(why == "", why2, why)
    # a double target has one rounding path: parsing through float32 is a cast to another type
    for alt in (via64,) if to.name == "double" else (via64, via32):
        ya, _, _ = _to_float(np.array(alt), to, saturate, round_mode, opset)
        differ = ~to.same_values(y, ya) & (why == "")
        why[differ] = UNDEF_STRING_ROUNDING
    if to.nan_style == dtypes.IEEE and not to.is_float8:  # the representatives are rounded already
        inexact = [isinstance(p, Fraction) and round_fraction(p, to) != p for p in parsed]
        finite = np.isfinite(np.asarray(y, dtype=np.float64))
        reading = np.where(np.array(inexact, dtype=bool) & finite, READING_IEEE_RNE, "").astype(object)
    for i, (s, p) in enumerate(zip(flat, parsed)):  # readings of the parsing itself
        if s.isascii() and s.upper() == "-INF" and s != "-INF":
            reading[i] = READING_STRING_NEGATIVE_INF
        elif isinstance(p, Fraction) and p != 0 and not FLOAT64_MIN_NORMAL <= abs(p) <= FLOAT64_MAX:
            reading[i] = "; ".join(r for r in (reading[i], READING_STRING_BEYOND_DOUBLE) if r)
    reading[why != ""] = ""
    return y.reshape(shape), why.reshape(shape), reading.reshape(shape)


FLOAT64_MAX = Fraction(float(np.finfo(np.float64).max))
FLOAT64_MIN_NORMAL = Fraction(float(np.finfo(np.float64).tiny))


def _parsed_as(q: Fraction, t: DType) -> float:
    """What strtof / strtod (t float32 / float64) make of the decimal value q: RNE, +-Inf past t's range."""
    r = round_fraction(q, t)
    if abs(r) > Fraction(t.finite_max):
        return float("inf") if q > 0 else float("-inf")
    out = float(r)
    return -0.0 if out == 0 and q < 0 else out


def format_number(value, src: DType) -> str:
    """Number -> string: plain floating-point representation [Cast], shortest that reads back
    to the same value of the source type; integers in decimal."""
    if src.kind in ("int", "uint"):
        return str(int(value))
    if src.name in ("float16", "float", "double"):
        return np.format_float_positional(np.asarray(value, dtype=src.np_dtype)[()], unique=True, trim="-")
    # narrow formats: the exact decimal value. It is long for the extremes of float8e8m0 and
    # bfloat16, but a shorter decimal would read back differently under some round_mode.
    d = decimal.Decimal(float(value))
    s = format(d, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


def _to_strings(x: np.ndarray, src: DType):
    flat = np.asarray(x).ravel()
    why = np.full(flat.shape, "", dtype=object)
    reading = np.full(flat.shape, READING_NUMBER_TO_STRING, dtype=object)
    out = []
    for i, val in enumerate(flat):
        if src.kind == "bool":
            why[i] = UNDEF_BOOL_TO_STRING
            out.append("1" if val else "0")
        elif src.is_float and not np.isfinite(float(val)):
            why[i] = UNDEF_NONFINITE_TO_STRING
            out.append(str(float(val)))
        else:
            out.append(format_number(val, src))
    reading[why != ""] = ""
    return np.array(out, dtype=object).reshape(np.shape(x)), why.reshape(np.shape(x)), reading.reshape(np.shape(x))


# ---------------------------------------------------------------------------------------
# the operator
# ---------------------------------------------------------------------------------------
def _int_values(x: np.ndarray, src: DType) -> np.ndarray:
    if src.kind == "bool":
        return np.asarray(x).astype(np.int64)
    a = np.asarray(x, dtype=src.np_dtype)
    return a.astype(np.uint64) if src.kind == "uint" else a.astype(np.int64)


def _ints_as_float64(ints: np.ndarray, to: DType, round_mode: str) -> np.ndarray:
    """Integers -> float64 values the float path rounds exactly as it would the integers."""
    with np.errstate(all="ignore"):
        v = ints.astype(np.float64)
    big = np.abs(v) >= 2.0**53
    if big.any():
        v = v.copy()
        for i in np.flatnonzero(big):
            v[i] = representative(Fraction(int(ints[i])), to, round_mode)
    return v


def cast(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True,
         round_mode: str = "up", opset: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """ONNX Cast of `x` (elements of `src`) to `to`, at `opset`. [Cast], [Cast-24], [float4], [float6], [int4]

    Returns (y, why): y of dtype to.np_dtype (an object array of str for strings) with x's
    shape; why an object array of str, "" where the spec defines y, else the reason it does not
    (y then holds a placeholder). `saturate` and `round_mode` have the meaning of Cast-19 / 24;
    they change nothing where the spec says they do not apply."""
    y, why, _ = cast_explained(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    return y, why


def cast_explained(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True,
                   round_mode: str = "up", opset: int = 25) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """cast(), plus `reading`: per element, "" where a sentence of the texts gives y (or y is
    undefined), else the READING_* its result rests on."""
    src, to = dtypes.get(src), dtypes.get(to)
    x = np.asarray(x, dtype=object if src.kind == "string" else src.np_dtype)
    y, why, reading = _cast_flat(x.reshape(-1), src, to, saturate, round_mode, opset)
    return y.reshape(x.shape), why.reshape(x.shape), reading.reshape(x.shape)


def explain(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True, round_mode: str = "up",
            opset: int = 25) -> tuple[Outcome, np.ndarray]:
    """Cast under the reference contract: (Outcome (y,) with the undefined elements by reason, reading per
    element as in cast_explained)."""
    y, why, reading = cast_explained(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    return Outcome.by_element([y], why), reading


def cast_outcome(x: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True, round_mode: str = "up",
                 opset: int = 25) -> Outcome:
    """Cast under the reference contract (generator/outcome.py): Outcome (y,), the undefined elements by
    reason. [Cast], [Cast-24], [float4], [float6], [int4]"""
    return explain(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)[0]


def readings(reading: np.ndarray) -> list[str]:
    """The readings a set of elements rests on, in the order of READINGS."""
    present = set(np.asarray(reading, dtype=object).ravel().tolist())  # an element may join several with "; "
    return [r for r in READINGS if any(r in e for e in present if e)]


def _cast_flat(x: np.ndarray, src: DType, to: DType, saturate: bool, round_mode: str, opset: int):
    if src.kind == "string":
        return _from_strings(x, to, saturate, round_mode, opset)
    if to.kind == "string":
        return _to_strings(x, src)
    why = np.full(x.shape, "", dtype=object)
    reading = np.full(x.shape, "", dtype=object)
    if src.is_float:
        with np.errstate(invalid="ignore"):  # ml_dtypes flags NaN conversions; they are exact
            v = x.astype(np.float64)  # exact for every float type here
        if to.kind == "bool":  # +/- 0.0 -> False, all else (NaN too) -> True
            return v != 0, why, reading
        if to.is_integer:
            return _float_to_int(v, to)
        y, why, reading = _to_float(v, to, saturate, round_mode, opset)
        if src.name == to.name and to.is_float8 and saturate:
            reading[np.isinf(v)] = READING_SAME_TYPE_SATURATE
        return y, why, reading
    ints = _int_values(x, src)  # bool -> {0, 1}
    if to.kind == "bool":
        return ints != 0, why, reading
    if to.is_integer:
        return _wrap(ints, to), why, reading
    y, why, reading = _to_float(_ints_as_float64(ints, to, round_mode), to, saturate, round_mode, opset)
    if to.nan_style == dtypes.IEEE and not to.is_float8:  # big integers arrive rounded: compare exactly
        reading[:] = ""
        with np.errstate(all="ignore"):
            finite = np.isfinite(y.astype(np.float64))
        reading[(why == "") & finite & ~_exact_ints(ints, y)] = READING_IEEE_RNE
    return y, why, reading


def _exact_ints(ints: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Element-wise: the float result y holds the integer exactly."""
    with np.errstate(all="ignore"):
        yv = np.asarray(y).astype(np.float64)
        same = np.isfinite(yv) & (yv == ints.astype(np.float64))
    for i in np.flatnonzero(same & (np.abs(yv) >= 2.0**53)):
        same[i] = int(yv[i]) == int(ints[i])
    return same


def node_attributes(attrs: dict, opset: int) -> dict:
    """saturate and round_mode of a Cast (or CastLike) node at `opset`, by ONNX name: the defaults where absent
    or not yet defined (saturate from opset 19, round_mode from 24)."""
    round_mode = attrs.get("round_mode", "up") if opset >= 24 else "up"
    return {"saturate": bool(attrs.get("saturate", 1)) if opset >= 19 else True,
            "round_mode": round_mode.decode() if isinstance(round_mode, bytes) else round_mode}


def cast_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
    """Cast as a graph node, for the opconform backend: attributes by ONNX name."""
    to = dtypes.get(int(attrs["to"]))
    return list(cast_outcome(inputs[0], input_types[0], to, opset=opset, **node_attributes(attrs, opset)).outputs)


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "Cast"): cast_node}
