"""The Cast reference (generator/reference/cast.py) held to the spec, numerically.

Independent oracles live in this file and use neither the reference nor ml_dtypes' float casts:
  * decode(): a bit-level decoder of the float layouts (sign / exponent / mantissa arithmetic);
  * rne_exact(): round-to-nearest-even with integer arithmetic on the exact value M * 2**E;
  * rne_fraction(): the same with fractions.Fraction, cross-checking rne_exact;
  * the two float8 tables of Cast.txt and the float8e8m0 table of Cast-24 transcribed as data and
    checked against the spec texts (onnx.defs docs, ../shared/spec/Cast.txt when present).
Then: every bit pattern of every <= 16-bit float type decodes right; every float16 / bfloat16 /
int16 value and every narrow float value cast to every narrow float type (both saturate values,
every round_mode for float8e8m0) matches the oracle and the tables; random float32 / float64 bit
patterns likewise; IEEE float -> IEEE float, int -> int, int -> float, bool and float -> int rules.

Out of scope: strings (tests/test_cast_strings.py), dtype facts (tests/test_dtypes.py).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, defs

from generator import dtypes
from generator.reference import cast as ref

SPEC_CAST = Path(__file__).resolve().parents[2] / "shared" / "spec" / "Cast.txt"

# ---------------------------------------------------------------------------------------------
# independent layouts: (exponent bits, mantissa bits, bias, NaN/Inf style)
# IEEE 754 (float16, float32, float64), bfloat16; ONNX docs/technical float8.md (E4M3FN: only
# S.1111.111 is NaN; FNUZ: only 1.0000.000 is NaN, no -0, no Inf), float4.md (E2M1, no NaN / Inf),
# float6.md (E2M3, E3M2, no NaN / Inf), OCP MX v1.0 (E8M0: unsigned, 2**(e-127), 0xFF NaN).
# ---------------------------------------------------------------------------------------------
LAYOUTS = {
    "float16": (5, 10, 15, "ieee"),
    "bfloat16": (8, 7, 127, "ieee"),
    "float": (8, 23, 127, "ieee"),
    "double": (11, 52, 1023, "ieee"),
    "float8e4m3fn": (4, 3, 7, "fn"),
    "float8e4m3fnuz": (4, 3, 8, "fnuz"),
    "float8e5m2": (5, 2, 15, "ieee"),
    "float8e5m2fnuz": (5, 2, 16, "fnuz"),
    "float8e8m0": (8, 0, 127, "e8m0"),
    "float4e2m1": (2, 1, 1, "none"),
    "float6e2m3": (2, 3, 1, "none"),
    "float6e3m2": (3, 2, 3, "none"),
}
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
SMALL = ("float4e2m1", "float6e2m3", "float6e3m2")  # saturating formats without NaN / Inf
NARROW = FLOAT8 + ("float8e8m0",) + SMALL
WIDTH = {n: e + m + (0 if s == "e8m0" else 1) for n, (e, m, _, s) in LAYOUTS.items()}  # E8M0 has no sign bit
VIEW = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
ROUND_MODES = ("up", "down", "nearest")


def decode(name: str, bits) -> np.ndarray:
    """float64 value of each bit pattern of `name`, from the layout alone (NaN keeps the sign bit)."""
    e, m, bias, style = LAYOUTS[name]
    b = np.asarray(bits).astype(np.int64)
    if style == "e8m0":
        return np.where(b == 0xFF, np.nan, np.ldexp(1.0, (b - bias).astype(np.int32)))
    sign = (b >> (e + m)) & 1
    expo = (b >> m) & ((1 << e) - 1)
    mant = b & ((1 << m) - 1)
    subnormal = np.ldexp(mant.astype(np.float64), np.int32(1 - bias - m))
    normal = np.ldexp((mant + (1 << m)).astype(np.float64), (expo - bias - m).astype(np.int32))
    mag = np.where(expo == 0, subnormal, normal)
    top = (1 << e) - 1
    if style == "ieee":
        mag = np.where(expo == top, np.where(mant == 0, np.inf, np.nan), mag)
    elif style == "fn":
        mag = np.where((expo == top) & (mant == (1 << m) - 1), np.nan, mag)
    elif style == "fnuz":
        mag = np.where((sign == 1) & (expo == 0) & (mant == 0), np.nan, mag)
    return np.where(sign == 1, -mag, mag)


def all_patterns(name: str) -> np.ndarray:
    return np.arange(1 << WIDTH[name], dtype=np.int64)


FMAX = {n: float(np.nanmax(np.where(np.isinf(v := decode(n, all_patterns(n))), np.nan, v))) for n in NARROW + ("float16", "bfloat16")}
FMAX["float"] = float(np.ldexp(2.0**24 - 1, 104))
FMAX["double"] = float(np.finfo(np.float64).max)
FMIN_POS = {n: float(np.nanmin(np.where((v := decode(n, all_patterns(n))) > 0, v, np.nan))) for n in NARROW}


def out_bits(y: np.ndarray, name: str) -> np.ndarray:
    """The bit pattern of each output element, by reinterpreting its storage (no conversion)."""
    y = np.asarray(y)
    width = WIDTH[name]
    b = y.view(UINT[y.dtype.itemsize * 8]).astype(np.int64)
    return b & ((1 << width) - 1) if width < 8 else b


def out_values(y: np.ndarray, name: str) -> np.ndarray:
    """Output values as float64: native numpy floats widen exactly; others go through decode()."""
    if name in ("float", "double"):
        return np.asarray(y).astype(np.float64)
    return decode(name, out_bits(y, name))


def source(name: str, bits: np.ndarray) -> np.ndarray:
    """Input array of float type `name` with these bit patterns (by reinterpretation)."""
    if name in VIEW:
        return np.asarray(bits).astype(UINT[np.dtype(VIEW[name]).itemsize * 8]).view(VIEW[name])
    return dtypes.get(name).from_bits(np.asarray(bits))


# ---------------------------------------------------------------------------------------------
# rounding oracles
# ---------------------------------------------------------------------------------------------
def precision(name: str) -> tuple[int, int]:
    """(mantissa bits, exponent of the smallest normal) of a target."""
    e, m, bias, style = LAYOUTS[name]
    return m, 1 - bias


def rne_exact(x: np.ndarray, name: str) -> np.ndarray:
    """Round finite float64 values to `name`'s precision, nearest-even, subnormals included,
    exponent unbounded above. Integer arithmetic on x = M * 2**E (M < 2**53). Negative values
    that round to zero give -0."""
    m, emin = precision(name)
    x = np.asarray(x, dtype=np.float64)
    frac, ex = np.frexp(np.abs(x))
    ex = ex.astype(np.int64)
    mant = (frac * 2.0**53).astype(np.int64)  # exact
    e_lo = ex - 53  # x = mant * 2**e_lo
    lead = ex - 1  # x in [2**lead, 2**(lead + 1))
    q = np.maximum(lead, emin) - m  # exponent of one unit in the last place
    need = (q - e_lo > 0) & (mant != 0)
    shift = np.clip(q - e_lo, 1, 60)
    n = mant >> shift
    rem = mant - (n << shift)
    half = np.int64(1) << (shift - 1)
    n = n + ((rem > half) | ((rem == half) & ((n & 1) == 1)))
    with np.errstate(over="ignore"):
        r = np.where(need, np.ldexp(n.astype(np.float64), np.clip(q, -1100, 1100).astype(np.int32)), np.abs(x))
    return np.copysign(r, x)


def rne_fraction(q: Fraction, name: str) -> Fraction:
    """Exact RNE of a rational to `name`'s precision (exponent unbounded above)."""
    m, emin = precision(name)
    if q == 0:
        return Fraction(0)
    a = abs(q)
    lead = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** lead > a:
        lead -= 1
    while Fraction(2) ** (lead + 1) <= a:
        lead += 1
    ulp = Fraction(2) ** (max(lead, emin) - m)
    n, rem = divmod(a, ulp)
    if 2 * rem > ulp or (2 * rem == ulp and n % 2 == 1):
        n += 1
    return n * ulp if q > 0 else -n * ulp


def ieee_expect(x: np.ndarray, name: str) -> np.ndarray:
    """float -> IEEE float [Cast: floating point: +/- infinity if OOR]: RNE, Inf when the rounded
    value exceeds the finite max, NaN stays NaN, Inf stays Inf."""
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x)
    r = rne_exact(np.where(finite, x, 0.0), name)
    r = np.where(np.abs(r) > FMAX[name], np.copysign(np.inf, x), r)
    return np.where(finite, r, x)


# ---------------------------------------------------------------------------------------------
# the spec's tables, transcribed
# ---------------------------------------------------------------------------------------------
# Cast.txt (= Cast-19..23), saturate=1; columns E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ
SAT_19 = {
    "0": ("0", "0", "0", "0"),
    "-0": ("-0", "0", "-0", "0"),
    "NaN": ("NaN", "NaN", "NaN", "NaN"),
    "Inf": ("FLT_MAX", "NaN", "FLT_MAX", "NaN"),
    "-Inf": ("-FLT_MAX", "NaN", "-FLT_MAX", "NaN"),
    "[x] > FLT_MAX": ("FLT_MAX", "FLT_MAX", "FLT_MAX", "FLT_MAX"),
    "[x] < -FLT_MAX": ("-FLT_MAX", "-FLT_MAX", "-FLT_MAX", "-FLT_MAX"),
    "else": ("RNE", "RNE", "RNE", "RNE"),
}
# Cast-24 onwards (onnx.defs): +-Inf -> +-FLT_MAX for the FNUZ types too
SAT_24 = dict(SAT_19, **{"Inf": ("FLT_MAX",) * 4, "-Inf": ("-FLT_MAX",) * 4})
# saturate=0, every opset from 19
NOSAT = {
    "0": ("0", "0", "0", "0"),
    "-0": ("-0", "0", "-0", "0"),
    "NaN": ("NaN", "NaN", "NaN", "NaN"),
    "-NaN": ("-NaN", "NaN", "-NaN", "NaN"),
    "Inf": ("NaN", "NaN", "Inf", "NaN"),
    "-Inf": ("-NaN", "NaN", "-Inf", "NaN"),
    "[x] > FLT_MAX": ("NaN", "NaN", "Inf", "NaN"),
    "[x] < -FLT_MAX": ("NaN", "NaN", "-Inf", "NaN"),
    "else": ("RNE", "RNE", "RNE", "RNE"),
}
# Cast-24 float8e8m0 table; columns "saturate + up", "non-saturate + nearest"
E8M0_TABLE = {
    "0": ("0", "NaN"),
    "-0": ("Unspecified", "Unspecified"),
    "NaN": ("NaN", "NaN"),
    "Inf": ("E8M0_MAX", "NaN"),
    "x > E8M0_MAX": ("E8M0_MAX", "NaN"),
    "x < E8M0_MIN": ("E8M0_MIN", "NaN"),
    "x < 0": ("Unspecified", "Unspecified"),
}


def table(saturate: bool, opset: int) -> dict:
    return (SAT_24 if opset >= 24 else SAT_19) if saturate else NOSAT


def markdown_tables(doc: str) -> list[dict]:
    """The pipe tables of an onnx.defs doc string as {row label: cells}."""
    out, cur = [], None
    for line in doc.splitlines():
        if not line.startswith("|"):
            cur = None
            continue
        cells = [c.strip().replace("\\", "") for c in line.strip().strip("|").split("|")]
        if cells[0] == "x":
            cur = {}
            out.append(cur)
        elif not set(cells[0]) <= {"-", " "} or cells[0] in ("-0",):
            cur[cells[0]] = tuple(cells[1:])
    return out


# ---------------------------------------------------------------------------------------------
# expectations from the tables / notes, and one checker
# ---------------------------------------------------------------------------------------------
class Expect:
    """Expected float64 values plus, per element: whether the sign of an expected NaN is stated,
    whether the element must be reported undefined (`why`), or may be either."""

    def __init__(self, shape):
        self.value = np.zeros(shape)
        self.nan_sign = np.zeros(shape, bool)
        self.must_undef = np.zeros(shape, bool)
        self.may_undef = np.zeros(shape, bool)


def expect_float8(x: np.ndarray, name: str, saturate: bool, opset: int) -> Expect:
    """[Cast] tables for the four float8 types, applied to exact source values x."""
    col = FLOAT8.index(name)
    tab = table(saturate, opset)
    fnuz = LAYOUTS[name][3] == "fnuz"
    fmax = FMAX[name]
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x)
    neg = np.signbit(x)
    r = rne_exact(np.where(finite, x, 0.0), name)
    rows = np.full(x.shape, "else", dtype=object)
    rows[finite & (r > fmax)] = "[x] > FLT_MAX"
    rows[finite & (r < -fmax)] = "[x] < -FLT_MAX"
    rows[x == 0] = "0"
    rows[(x == 0) & neg] = "-0"
    rows[np.isinf(x)] = "Inf"
    rows[np.isinf(x) & neg] = "-Inf"
    rows[np.isnan(x)] = "NaN"
    if "-NaN" in tab:
        rows[np.isnan(x) & neg] = "-NaN"
    ex = Expect(x.shape)
    cells = {"0": 0.0, "-0": -0.0, "FLT_MAX": fmax, "-FLT_MAX": -fmax, "Inf": np.inf, "-Inf": -np.inf,
             "NaN": np.nan, "-NaN": -np.nan}
    for row in set(rows.tolist()):
        cell = tab[row][col]
        sel = rows == row
        if cell == "RNE":
            v = r[sel]
            ex.value[sel] = np.where(v == 0, 0.0, v) if fnuz else v  # FNUZ has no -0
        else:
            ex.value[sel] = cells[cell]
            if cell == "-NaN":
                ex.nan_sign[sel] = True
            elif cell == "NaN" and not fnuz:  # a NaN from a non-negative x is a positive NaN
                ex.nan_sign[sel & ~neg] = True
    return ex


def expect_small(x: np.ndarray, name: str) -> Expect:
    """float4e2m1 [float4 note]: RNE in [-6, 6], +-0 kept, x > 6 -> 6, x < -6 -> -6, +-Inf -> +-6,
    NaN -> 6. float6e2m3 / float6e3m2 [float6 note]: RNE with saturation, inf -> max, NaN unspecified."""
    x = np.asarray(x, dtype=np.float64)
    fmax = FMAX[name]
    finite = np.isfinite(x)
    r = rne_exact(np.where(finite, x, 0.0), name)
    ex = Expect(x.shape)
    ex.value = np.where(np.abs(r) > fmax, np.copysign(fmax, x), r)
    ex.value[np.isinf(x)] = np.copysign(fmax, x[np.isinf(x)])
    nan = np.isnan(x)
    if name == "float4e2m1":
        ex.value[nan] = fmax
        ex.may_undef[nan & np.signbit(x)] = True  # the note says NaN -> 6 and no sign; either is fine
    else:
        ex.must_undef[nan] = True
    return ex


def e8m0_round(x: np.ndarray, mode: str) -> np.ndarray:
    """Power of two chosen by `mode` for finite positive x (exponent unbounded): up = smallest
    2**k >= x, down = largest 2**k <= x, nearest = the nearer of the two, ties up. Integer
    arithmetic on x = M * 2**E."""
    frac, ex = np.frexp(x)
    mant = (frac * 2.0**53).astype(np.int64)  # in [2**52, 2**53)
    k = ex.astype(np.int64) - 1  # 2**k <= x < 2**(k + 1)
    exact = mant == (np.int64(1) << 52)
    if mode == "up":
        k = k + ~exact
    elif mode == "nearest":
        # x - 2**k >= 2**(k + 1) - x  <=>  2 * mant >= 3 * 2**52
        k = k + (2 * mant >= 3 * (np.int64(1) << 52))
    return k


def expect_e8m0(x: np.ndarray, saturate: bool, mode: str) -> Expect:
    """[Cast-24] float8e8m0: in range the power of two of round_mode; the table for 0, NaN, Inf,
    x > E8M0_MAX, x < E8M0_MIN (tabled for saturate+up and non-saturate+nearest); negative and -0
    unspecified. Saturation of the other modes follows the attribute (out of range -> MIN / MAX);
    non-saturating up / down out of range is not tabled: NaN or undefined are both accepted."""
    x = np.asarray(x, dtype=np.float64)
    ex = Expect(x.shape)
    lo, hi = FMIN_POS["float8e8m0"], FMAX["float8e8m0"]
    nan = np.isnan(x)
    neg = np.signbit(x) & ~nan
    pos = ~nan & ~neg
    inf = pos & np.isinf(x)
    fin = pos & ~inf & (x > 0)
    k = e8m0_round(np.where(fin, x, 1.0), mode)
    ex.value = np.ldexp(1.0, np.clip(k, -200, 200).astype(np.int32))
    low = pos & (x < lo)  # 0 included
    high = fin & (x > hi)
    ex.value[nan] = np.nan
    ex.must_undef[neg] = True
    if saturate:
        ex.value[low] = lo  # table "0 -> 0": the all-zero encoding, which is E8M0_MIN = 2**-127
        ex.value[high | inf] = hi
    elif mode == "nearest":
        ex.value[low | high | inf] = np.nan
    else:
        ex.value[low | high | inf] = np.nan
        ex.may_undef[low | high | inf] = True
    return ex


def expect_for(x: np.ndarray, name: str, saturate: bool = True, opset: int = 25, mode: str = "up") -> Expect:
    if name in FLOAT8:
        return expect_float8(x, name, saturate, opset)
    if name in SMALL:
        return expect_small(x, name)
    if name == "float8e8m0":
        return expect_e8m0(x, saturate, mode)
    ex = Expect(np.shape(x))
    ex.value = ieee_expect(x, name)
    return ex


def verify(what: str, x, y, why, name: str, ex: Expect) -> None:
    """Compare the reference's output (y, why) for inputs x with the expectation; a readable
    failure names the case, the first mismatching indices, input, expected and actual values."""
    got = out_values(y, name).ravel()
    why = np.asarray(why, dtype=object).ravel()
    exp = ex.value.ravel()
    undef = why != ""
    bad = (undef & ~ex.must_undef.ravel() & ~ex.may_undef.ravel()) | (~undef & ex.must_undef.ravel())
    check = ~undef
    nan_e, nan_g = np.isnan(exp), np.isnan(got)
    same = np.where(nan_e, nan_g, got.view(np.int64) == exp.view(np.int64))
    same &= ~(nan_e & ex.nan_sign.ravel()) | (np.signbit(got) == np.signbit(exp))
    bad |= check & ~same & ~ex.must_undef.ravel()
    if bad.any():
        idx = np.flatnonzero(bad)
        xs = np.asarray(x).ravel()
        lines = [f"  [{i}] x={xs[i]!r} expected={exp[i]!r}{' (sign stated)' if ex.nan_sign.ravel()[i] else ''}"
                 f"{' undefined' if ex.must_undef.ravel()[i] else ''} got={got[i]!r} why={why[i]!r}"
                 for i in idx[:12]]
        raise AssertionError(f"{what}: {len(idx)} of {got.size} elements differ\n" + "\n".join(lines))


def run(x, src: str, to: str, **kw):
    y, why = ref.cast(x, src, to, **kw)
    assert np.shape(y) == np.shape(x) and np.shape(why) == np.shape(x)
    if to not in ("string",):
        assert np.asarray(y).dtype == dtypes.get(to).np_dtype, (np.asarray(y).dtype, to)
    return y, why


def configs(name: str):
    """(saturate, opset, round_mode) combinations worth checking for a target."""
    if name in FLOAT8:
        out = [(True, 25, "up"), (False, 25, "up")]
        if "fnuz" in name:
            out += [(True, 19, "up"), (True, 23, "up")]
        return out
    if name == "float8e8m0":
        return [(s, 25, m) for s in (True, False) for m in ROUND_MODES]
    return [(True, 25, "up")]


# ---------------------------------------------------------------------------------------------
# 0. the oracles themselves
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 1. every bit pattern of every <= 16-bit float type, cast to float32 and float64
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 2. the float8 tables, row by row, from every wide float source
# ---------------------------------------------------------------------------------------------
def next_up(v: float, src: str) -> float:
    """Next value of `src` above the (representable) positive value v."""
    if src in ("float16", "float", "double"):
        return float(np.nextafter(VIEW[src](v), VIEW[src](np.inf)))
    b = np.array([v], dtype=ml_dtypes.bfloat16).view(np.uint16) + 1
    return float(b.view(ml_dtypes.bfloat16)[0])


def next_down(v: float, src: str) -> float:
    if src in ("float16", "float", "double"):
        return float(np.nextafter(VIEW[src](v), VIEW[src](0)))
    b = np.array([v], dtype=ml_dtypes.bfloat16).view(np.uint16) - 1
    return float(b.view(ml_dtypes.bfloat16)[0])


def representable(v: float, src: str) -> bool:
    return float(np.array([v]).astype(VIEW[src])[0]) == v


def boundary_values(to: str, src: str) -> dict[str, list[float]]:
    """Inputs for each row of the tables: the row label -> exact source values."""
    m, _ = precision(to)
    fmax = FMAX[to]
    ulp = 2.0 ** (np.floor(np.log2(fmax)) - m)
    tie = fmax + ulp / 2  # halfway between FLT_MAX and the next value of the unbounded format
    cand = [fmax, tie, tie + ulp / 32, fmax + ulp, fmax * 4, 1e30, FMAX[src]]
    cand = [c for c in cand if c <= FMAX[src] and representable(c, src)]
    cand += [next_down(tie, src), next_up(tie, src), next_up(fmax, src)] if tie <= FMAX[src] else []
    over = sorted({c for c in cand if rne_fraction(Fraction(c), to) > fmax})
    at = sorted({c for c in cand if rne_fraction(Fraction(c), to) == fmax})
    return {
        "0": [0.0], "-0": [-0.0], "NaN": [np.nan], "-NaN": [-np.nan], "Inf": [np.inf], "-Inf": [-np.inf],
        "[x] > FLT_MAX": over, "[x] < -FLT_MAX": [-c for c in over],
        "else": at + [-c for c in at] + [1.0, -1.0, FMIN_POS[to], -FMIN_POS[to], FMIN_POS[to] / 2,
                                         -FMIN_POS[to] / 2, FMIN_POS[to] * 0.75, 3.3],
    }


# ---------------------------------------------------------------------------------------------
# 3. exhaustive: every float16 / bfloat16 / int16 value and every narrow float value, to every
#    narrow float type, with every attribute combination that matters
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 4. float -> IEEE float
# ---------------------------------------------------------------------------------------------
IEEE_PAIRS = [("double", "float"), ("double", "float16"), ("double", "bfloat16"), ("float", "float16"),
              ("float", "bfloat16"), ("float16", "bfloat16"), ("bfloat16", "float16")]


# ---------------------------------------------------------------------------------------------
# 5. integers
# ---------------------------------------------------------------------------------------------
INTS = [d.name for d in dtypes.all_dtypes() if d.is_integer]


def int_samples(name: str, rng) -> list[int]:
    d = dtypes.get(name)
    lo, hi = d.int_min, d.int_max
    base = {lo, hi, 0, 1, -1, lo + 1, hi - 1, 200, -56, 127, 128, 255, 256, -129, 65535, 2**31, 2**32 - 1}
    base |= {int(v) for v in rng.integers(lo, hi, 200, endpoint=True, dtype=np.uint64 if d.kind == "uint" else np.int64)}
    return sorted(v for v in base if lo <= v <= hi)


def wrap(v: int, name: str) -> int:
    d = dtypes.get(name)
    v %= 1 << d.bits
    return v - (1 << d.bits) if d.kind == "int" and v >= 1 << (d.bits - 1) else v


def int_array(values: list[int], name: str) -> np.ndarray:
    return np.array(values, dtype=np.int64 if dtypes.get(name).kind == "int" else np.uint64).astype(dtypes.get(name).np_dtype)


def big_ints() -> list[int]:
    out = {0, 1, -1, 2**24 + 1, 2**24 + 3, -(2**24 + 1), 65504, 65519, 65520, -65520, 2**63 - 1, -(2**63)}
    for k in range(53, 64):
        for d in (-3, -1, 0, 1, 3):
            out.add(2**k + d)
        for p in (k - 53, k - 24, k - 11, k - 8):  # ties of float64 / float32 / float16 / bfloat16
            out |= {2**k + 2**p, 2**k + 2**p + 1, 2**k + 2**p - 1, 2**k + 3 * 2**p, 2**(k + 1) - 2**p}
    rng = np.random.default_rng(5)
    out |= {int(v) for v in rng.integers(0, 2**63, 300, dtype=np.int64)}
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# 6. bool
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 7. float -> int: truncation toward zero in range, undefined out of range / NaN / Inf
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 8. float8e8m0: the Cast-24 table, round_mode, exact computation
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# 9. float4e2m1 / float6 by their notes
# ---------------------------------------------------------------------------------------------
def test_float6_note():
    x = np.array([25.0, -0.0, np.inf, -np.inf, 30.0, -1e9, 0.1], dtype=np.float32)
    y, why = run(x, "float", "float6e2m3")
    assert (why == "").all()
    got = out_values(y, "float6e2m3")
    assert got.tolist() == [7.5, -0.0, 7.5, -7.5, 7.5, -7.5, 0.125] and np.signbit(got[1])
    y, why = run(x, "float", "float6e3m2")
    assert (why == "").all()
    assert out_values(y, "float6e3m2").tolist() == [24.0, -0.0, 28.0, -28.0, 28.0, -28.0, 0.125]
    for to in ("float6e2m3", "float6e3m2"):  # "nan -> unspecified" [float6 note]
        _, why = run(np.array([np.nan, -np.nan], dtype=np.float32), "float", to)
        assert (why != "").all(), to


# ---------------------------------------------------------------------------------------------
# 10. attributes that do not apply change nothing; opsets where the semantics did not change
# ---------------------------------------------------------------------------------------------
def mixed_inputs() -> np.ndarray:
    rng = np.random.default_rng(13)
    edge = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e9, -1e9, 65519, 65520, 448, 464, 465, 1.5,
            -2.5, 2.0**-127, 2.0**-140, 3e38, -3e38, 200, -56, 0.5]
    return np.concatenate([edge, rng.standard_normal(500) * 2.0 ** rng.integers(-30, 30, 500)]).astype(np.float32)


