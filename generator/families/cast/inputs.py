"""The data of Cast's cases: the edge catalogue of a (from, to) pair, and seeded random inputs for wider sources."""

from __future__ import annotations

import math

import numpy as np

from generator import dtypes, sampling
from generator.dtypes import DType
from generator.reference import cast as ref
from generator.reference.cast_strings import format_number, parse_number

FLOAT64_MAX = float(np.finfo(np.float64).max)
FLOAT64_MIN_NORMAL = float(np.finfo(np.float64).tiny)


def _float_boundaries(to: DType) -> list[float]:
    """Values that test a float target's rounding: overflow boundary, subnormals, ties."""
    if not to.is_float:
        return []
    m = to.mantissa_bits
    big = to.finite_max
    ulp = 2.0 ** (math.floor(math.log2(big)) - m)  # spacing of the largest binade
    sub = to.smallest_subnormal
    above = [big + ulp / 4, big + ulp / 2, big + 3 * ulp / 4, big + ulp, 2 * big]
    out = [big, big - ulp] + [a for a in above if a != math.inf] + [
           to.smallest_normal, sub, sub / 2, sub * 0.75, sub * 1.5, sub * 2.5, sub / 4,
           to.smallest_normal - sub, to.smallest_normal - sub / 2,
           1 + 2.0 ** -(m + 1), 1 + 3 * 2.0 ** -(m + 1), 1 + 2.0 ** -m, 1.5, 3.0]
    if to.nan_style == dtypes.E8M0:
        out += [0.75, 1.25, 1.75, 2.0**127 * 1.25, 2.0**127 * 1.5, 2.0**128, 2.0**-128, 2.0**-127 * 0.75]
    return out


def _int_boundaries(to: DType) -> list[int]:
    if not to.is_integer:
        return []
    lo, hi = to.int_min, to.int_max
    return [lo, hi, lo + 1, hi - 1, lo - 1, hi + 1, 1 << to.bits, (1 << to.bits) - 1,
            (1 << to.bits) + 1, -(1 << to.bits), 2 * hi + 1, (1 << (to.bits - 1)) + 1]


def _src_neighbors(values: np.ndarray, src: DType) -> np.ndarray:
    """The next representable values of the source below and above each value (by bits)."""
    if not src.is_float or values.size == 0:
        return values[:0]
    sign = src.sign_mask if src.signed_float else 0
    limit = src.sign_mask if src.signed_float else 1 << src.bits
    out = []
    for b in src.to_bits(values).tolist():
        mag = b & ~sign
        out += [(b & sign) | (mag + d) for d in (-1, 1) if 0 <= mag + d < limit]
    cand = src.from_bits(np.array(out, dtype=np.uint64))
    return cand[~src.isnan(cand)]


def _to_src(values: list, src: DType) -> np.ndarray:
    """Candidate values (python floats / ints) as elements of `src`; unrepresentable ones are
    rounded by the reference (saturating), non-encodable ones dropped."""
    if src.kind == "bool":
        return np.array(sorted({bool(v) for v in values if v == v}), dtype=bool)
    if src.is_integer:
        ints = sorted({int(v) for v in values if isinstance(v, (int, np.integer)) and src.int_min <= v <= src.int_max})
        return np.array(ints, dtype=object).astype(src.np_dtype)
    outcome = ref.cast_outcome(np.array([float(v) for v in values], dtype=np.float64), "double", src, saturate=True)
    return outcome.outputs[0][~outcome.mask()]


def _unique(a: np.ndarray, d: DType) -> np.ndarray:
    """Deduplicate by bit pattern, keeping first occurrences in order."""
    if d.kind == "string":
        seen, out = set(), []
        for s in a:
            if s not in seen:
                seen.add(s), out.append(s)
        return np.array(out, dtype=object)
    _, idx = np.unique(d.to_bits(a), return_index=True)
    return a[np.sort(idx)]


def _decimal(x: float) -> str:
    return format_number(np.float64(x), dtypes.get("double"))


def edge_inputs(src: DType, to: DType) -> np.ndarray:
    """The edge catalogue for one pair, as elements of `src`."""
    if src.kind == "string":
        return _string_edges(to)
    if src.kind == "bool":
        return np.array([False, True])
    base: list = [0, 1, -1, 2, -2, 3, 7, -7]
    if src.is_float:
        base += [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.9, -0.9, 1.1, -1.1, 100.5, -100.5,
                 src.finite_max, -src.finite_max, src.smallest_normal, -src.smallest_normal,
                 src.smallest_subnormal, -src.smallest_subnormal]
        special = [np.inf, -np.inf, np.nan, -np.nan]
        bounds = _float_boundaries(to) + [float(b) for b in _int_boundaries(to)]
        bounds += [0.5 + b for b in _int_boundaries(to)] + [b - 0.5 for b in _int_boundaries(to)]
        if to.is_integer and to.bits < 8:  # every tie of a target that rounds to nearest even (int4.md / int2.md)
            bounds += [k + 0.5 for k in range(to.int_min, to.int_max)]
        bounds += [-b for b in bounds]
        main = _to_src(base + bounds, src)
        x = np.concatenate([main, _src_neighbors(_to_src(bounds, src), src)])
        specials = _special_values(src, special)
        return _unique(np.concatenate([x, specials]), src)
    # integer sources
    base += [src.int_min, src.int_max, src.int_min + 1, src.int_max - 1]
    bounds = _int_boundaries(to)
    if to.is_float and to.mantissa_bits is not None:
        p = to.mantissa_bits + 1
        bounds += [(1 << p) - 1, 1 << p, (1 << p) + 1, (1 << p) + 3, (1 << (p + 1)) + 2, (1 << (p + 1)) + 6]
        bounds += [int(b) for b in _float_boundaries(to) if 1 <= b < 2.0**64 and float(b).is_integer()]
        bounds += [int(b) + 1 for b in _float_boundaries(to) if 1 <= b < 2.0**64]
        bounds += [(1 << 53) + 1, (1 << 53) + 3, (1 << 63) - 1, (1 << 64) - 1, (1 << 63) + (1 << 39) + 1]
    bounds += [-b for b in bounds]
    return _unique(_to_src(base + bounds, src), src)


def _special_values(src: DType, special: list[float]) -> np.ndarray:
    out = []
    if src.has_inf:
        out += [np.inf, -np.inf]
    vals = np.array(out, dtype=np.float64).astype(src.np_dtype)
    if src.has_nan:
        bits = [src.nan_bits] + ([src.negative_nan_bits] if src.negative_nan_bits is not None else [])
        vals = np.concatenate([vals, src.from_bits(np.array(bits))])
    return vals


# Decimal values beyond float64's normal range: defined (the value rounds like any other), but
# strtod-based parsers report ERANGE on them, so they get their own case instead of making the
# whole edge case raise.
EXTREME_STRINGS = ["1e400", "-1e400", "1e-400", "-1e-400", "1E4000", "0.1e-99999", "2.5e-324", "1e-310"]


def _is_extreme(s: str) -> bool:
    p = parse_number(s)
    if p is None or isinstance(p, float) or p == 0:
        return False
    return abs(p) > FLOAT64_MAX or abs(p) < FLOAT64_MIN_NORMAL


def _string_edges(to: DType) -> np.ndarray:
    strings = ["0", "-0", "1", "-1", "+1", "3.14", "1000", "1e-5", "1E8", "2.5", "-2.5", "0.5", ".5",
               "5.", "100.5", "2.718", "-2.718", "1e3", "0.1", "-0.1", "1e-45", "65504", "65520",
               "+INF", "INF", "-INF", "NaN", "inf", "+inf", "-inf", "nan", "iNf", "+Inf", "-iNF",
               "NAN", "nAn", "Infinity", "-NaN", "+NaN", "hello", "Hello World!", "", " 1", "1 ",
               "0x10", "1_000", "1e", "e5", "--1", "0e0",
               "123456789012345678901234567890", "340282356779733661637539395458142568448"]
    for b in _int_boundaries(to):
        strings.append(str(b))
    for b in _float_boundaries(to):
        strings += [_decimal(b), _decimal(-b)]
    return _unique(np.array(strings, dtype=object), dtypes.get("string"))


# ---------------------------------------------------------------------------------------
# random inputs (seeded PCG64 draws, generator.sampling)
# ---------------------------------------------------------------------------------------
_SPECIAL_DOUBLES = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5,
                    FLOAT64_MAX, -FLOAT64_MAX, FLOAT64_MIN_NORMAL, -FLOAT64_MIN_NORMAL, 5e-324, -5e-324]


def _signed(s: sampling.Stream, v: float) -> float:
    return -v if s.booleans() else v


def _random_double(s: sampling.Stream, to: DType) -> float:
    """One double: a special (1/4), any double from a random 64-bit pattern (1/4: every exponent, NaN
    payloads), or (1/2) a value at the target's scale, where its rounding happens: for an integer
    target an integer of [int_min - 2, int_max + 2] (1/4), that plus +-0.5 or a random fraction (1/8),
    or a signed magnitude in the octaves 2**-4 .. 2**bits (1/8); for a float target a magnitude over
    its exponents (below its smallest subnormal to beyond its max) whose mantissa keeps half the time
    only one bit more than the target's (ties and exact values). A double target has no scale of its
    own: special or any (1/4 and 3/4)."""
    kind = s.integers(0, 3)
    if kind == 0:
        return s.choice(_SPECIAL_DOUBLES)
    if kind == 1 or not (to.is_integer or to.is_float and to.name != "double"):
        return float(np.uint64(s.bits(64)).view(np.float64))
    if to.is_integer:
        if kind == 2:
            return float(s.integers(to.int_min - 2, to.int_max + 2))
        if s.booleans():
            fraction = s.choice([0.5, -0.5, None])
            return float(s.integers(to.int_min - 2, to.int_max + 2)) + (s.random() if fraction is None else fraction)
        return _signed(s, s.octaves(-4, to.bits + 1))
    e_lo = math.frexp(to.smallest_subnormal)[1] - 2
    e_hi = math.frexp(to.finite_max)[1] + 1
    e = s.integers(e_lo, e_hi - 1)
    p = to.mantissa_bits + 1 if s.booleans() else 52
    m = 1.0 + s.integers(0, (1 << p) - 1) * 2.0**-p
    return _signed(s, math.ldexp(m, e))


def _random_int(s: sampling.Stream, src: DType, to: DType) -> int:
    """One integer of src: uniform over src (1/4), uniform near the integer target's range (1/4, else
    spread over magnitudes), spread over magnitudes (1/4, Stream.log_integers), or +-2**k + {-1, 0, 1}
    clipped to src (1/4): wrap boundaries and the integers where a float target starts rounding."""
    kind = s.integers(0, 3)
    if kind == 1 and to.is_integer:
        return s.integers(max(src.int_min, 2 * to.int_min - 2), min(src.int_max, 2 * to.int_max + 2))
    if kind in (1, 2):
        return s.log_integers(src.int_min, src.int_max)
    if kind == 3:
        v = (1 << s.integers(0, src.bits)) + s.integers(-1, 1)
        v = -v if src.kind == "int" and s.booleans() else v
        return min(max(v, src.int_min), src.int_max)
    return s.integers(src.int_min, src.int_max)


def _random_number_text(s: sampling.Stream, to: DType) -> str:
    """Text a string -> number Cast reads (1/4 each): a decimal literal [+-]?(d{1,12}(.d{0,12})?|.d{1,12})
    ([eE][+-]?d{1,2})? (digit counts biased to short ones; 3/4 with an integer part, half of them with a
    fraction, 1/4 only a fraction; 1/4 with an exponent),
    the repr of a non-NaN double (also 'inf', '-inf', '1e+300'), an integer of [-2**70, 2**70] spread
    over magnitudes (Stream.log_integers), or a non-NaN double of _random_double for the target (at its
    scale half the time), written as an integer when it is one."""
    kind = s.integers(0, 3)
    if kind in (1, 3):
        while True:
            v = _random_double(s, dtypes.get("float") if kind == 1 else to)
            if v == v:
                return str(int(v)) if kind == 3 and math.isfinite(v) and v == int(v) else repr(v)
    if kind == 2:
        return str(s.log_integers(-(2**70), 2**70))

    def digits(lo: int, hi: int) -> str:  # a count in [lo, hi], short ones likelier
        return "".join(s.choices("0123456789", s.integers(lo, s.integers(lo, hi))))

    text = s.choice(["", "+", "-"])
    if s.integers(0, 3):
        text += digits(1, 12) + ("." + digits(0, 12) if s.booleans() else "")
    else:
        text += "." + digits(1, 12)
    if s.integers(0, 3) == 0:
        text += s.choice("eE") + s.choice(["", "+", "-"]) + digits(1, 2)
    return text


def random_inputs(src: DType, to: DType, n: int, seed: int) -> np.ndarray:
    if n == 0:
        return np.array([], dtype=object if src.kind == "string" else src.np_dtype)
    s = sampling.Stream(seed)
    if src.kind == "string":
        return _unique(np.array([_random_number_text(s, to) for _ in range(n)], dtype=object), src)
    if src.is_integer:
        return np.array([_random_int(s, src, to) for _ in range(n)], dtype=object).astype(src.np_dtype)
    # floats: half drawn as doubles (specials, anything, values at the target's scale), half as raw bit
    # patterns of the source (NaN payloads, subnormals and every exponent of the source)
    doubles = [_random_double(s, to) for _ in range(n - n // 2)]
    patterns = s.bits(src.bits, n // 2)
    return np.concatenate([_to_src(doubles, src), src.from_bits(patterns)])
