"""The Cast family: every (from, to) pair some Cast opset allows, for each attribute value that
changes the semantics (saturate for float8 and float8e8m0 targets, round_mode for float8e8m0).

For each such variant:
  <name>_edge        the edge catalogue: +-0, +-Inf, NaN of both signs, the extremes of both types,
                     values just inside / at / just outside the target's range, RNE ties at the
                     overflow boundary, in the subnormals and mid-range, integer wrap boundaries
  <name>_exhaustive  every bit pattern of a source of <= 8 bits (16 bits in the exhaustive profile)
  <name>_random      seeded PCG64 draws (generator.sampling) for wider sources
  <name>_probe       (probe/) every generated input whose result the spec leaves undefined
plus, for some pairs, 0-d / empty / 3-d shapes, the FNUZ Inf row once per semantics, and the
rows where the saturate=0 table states the sign of NaN.

Expected values come from generator.reference.cast only. Each case cites in case.json "spec" the text its
expectations come from (spec_of), and names in "reading" the readings they rest on where no sentence gives
them (generator.reference.cast READING_*, docs/readings.md).

The case functions (CATALOGUE: data_sets, fnuz_inf, negative_nan, shapes, witness) take a Form (the family, the
node, the data set of x), so an operator with Cast's semantics reuses them with its own (CastLike:
generator/families/cast_like.py).
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import math
from typing import Callable, Iterable, Iterator

import numpy as np
import onnx

from generator import axes, dtypes, sampling
from generator.case import Case, node_model
from generator.dtypes import DType
from generator.family import Catalogue, Family, split, split_elements
from generator.outcome import Outcome
from generator.reference import cast as ref

FAMILY = Family("cast", "Cast", "Cast.txt")
GRID = ("from", "to", ())  # the report draws this family as a grid: rows, columns, tables
CAST_SCHEMA = f"onnx.defs Cast-24..{onnx.defs.get_schema('Cast').since_version} (onnx {onnx.__version__})"
# ONNX's technical notes (docs/docsgen/source/technical/ in onnx/onnx), at the revision read; the onnx wheel
# does not ship them. float6.md is not on onnx main yet: the revision is the pull request's that onnx.ai
# publishes and that the installed onnx's FLOAT6 code goes with (ee4c1ba / c93be5d, PRs #7145 / #8349).
NOTE_INT4 = "ONNX docs/technical/int4.md @ f754691 (onnx main, 2026-08-22; this text since d2ac757, 2024-01-08)"
NOTE_INT2 = "ONNX docs/technical/int2.md @ f754691 (onnx main, 2026-08-22; this text since 8f97916, 2025-11-06)"
NOTE_FLOAT4 = "ONNX docs/technical/float4.md @ f754691 (onnx main, 2026-08-22; this text since c057d17, 2024-08-23)"
NOTE_FLOAT6 = "ONNX docs/technical/float6.md @ c93be5d (onnx PR #8349, 2026-08-22; onnx.ai technical/float6)"
# Lowest opset a case uses: Cast-13 is the first with bfloat16 and what current backends all
# implement; a pair whose types are newer starts at the first opset accepting both.
MIN_OPSET = 13
NEWEST_CAST = onnx.defs.get_schema("Cast").since_version  # of the installed onnx

PROFILES = {
    # random: draws per case for sources wider than 8 bits; exhaustive16: every 16-bit pattern
    "quick": dict(exhaustive8=False, exhaustive16=False, random=0, shapes=False),
    "default": dict(exhaustive8=True, exhaustive16=False, random=48, shapes=True),
    "exhaustive": dict(exhaustive8=True, exhaustive16=True, random=512, shapes=True),
}

FLOAT64_MAX = float(np.finfo(np.float64).max)
FLOAT64_MIN_NORMAL = float(np.finfo(np.float64).tiny)

EXACT = {"mode": "exact", "reason": "Cast defines one result per input: RNE and the spec's tables"}


@dataclass(frozen=True)
class Variant:
    src: DType
    to: DType
    saturate: bool | None  # None: not applicable to this target
    round_mode: str | None  # only for float8e8m0
    opset: int

    @property
    def label(self) -> str:
        """What names the variant: float32_to_float8e8m0_nosat_down (the hunt's slice, case names after the op)."""
        name = f"{dtypes.short(self.src)}_to_{dtypes.short(self.to)}"
        if self.saturate is False:
            name += "_nosat"
        if self.round_mode not in (None, "up"):
            name += f"_{self.round_mode}"
        return name

    @property
    def base_name(self) -> str:
        return f"{FAMILY.prefix}_{self.label}"

    @property
    def attrs(self) -> dict:
        """Node attributes; defaults (saturate=1, round_mode=up) are left out, as models do."""
        a = {"to": self.to.onnx}
        if self.saturate is False:
            a["saturate"] = 0
        if self.round_mode not in (None, "up"):
            a["round_mode"] = self.round_mode
        return a

    @property
    def params(self) -> dict:
        p = {"from": self.src.name, "to": self.to.name}
        if self.saturate is not None:
            p["saturate"] = int(self.saturate)
        if self.round_mode is not None:
            p["round_mode"] = self.round_mode
        return p

    def explain(self, x: np.ndarray, opset: int | None = None) -> tuple[Outcome, np.ndarray]:
        """The reference's Outcome on x, and the readings per element (generator.reference.cast.explain)."""
        return ref.explain(x, self.src, self.to, saturate=self.saturate is not False,
                           round_mode=self.round_mode or "up", opset=opset or self.opset)

    def outcome(self, x: np.ndarray, opset: int | None = None) -> Outcome:
        return self.explain(x, opset)[0]


def attribute_options(to: DType) -> list[tuple[bool | None, str | None]]:
    """(saturate, round_mode) values that change what a cast to `to` does: saturate for float8, both for
    float8e8m0, none (None) elsewhere."""
    if to.is_float8:
        return [(True, None), (False, None)]
    if to.nan_style == dtypes.E8M0:
        return [(sat, mode) for sat in (True, False) for mode in ref.ROUND_MODES]
    return [(None, None)]


def variants(max_opset: int) -> Iterator[Variant]:
    types = dtypes.cast_types(min(max_opset, NEWEST_CAST))
    for src in types:
        for to in types:
            opset = max(src.cast_since, to.cast_since, MIN_OPSET)
            if opset <= max_opset:
                yield from (Variant(src, to, sat, mode, opset) for sat, mode in attribute_options(to))


def spec_of(v: Variant) -> tuple[str, str]:
    """(file, clause) of the text the variant's expected outputs come from."""
    src, to = v.src, v.to
    if src.kind == "string":
        return FAMILY.spec_file, "Casting from string tensor in plain and scientific numeric representations"
    if to.kind == "string":
        return FAMILY.spec_file, "When casting from numeric tensors to string tensors, plain floating-point representation"
    if to.is_float8:
        return FAMILY.spec_file, f"float 8 table, saturate={int(v.saturate)}"
    if to.nan_style == dtypes.E8M0:
        return CAST_SCHEMA, "FLOAT8E8M0 table, round_mode"
    if to.name == "float4e2m1":
        return NOTE_FLOAT4, ("Cast: '-6<=x<=6: E2M1 converted value of x. Round to nearest even.', x=+/-0 -> +/-0, "
                             "x>6 -> 6, x<-6 -> -6, +Inf -> 6, -Inf -> -6")
    if to.name.startswith("float6"):
        return NOTE_FLOAT6, "Cast: 'Downcasting RNE with saturation.'; its table: -0.0 -> -0.0, inf -> max (sat)"
    if src.is_float and to.is_integer and to.bits < 8:
        note, bits = (NOTE_INT4, 4) if to.bits == 4 else (NOTE_INT2, 2)
        return note, (f"Cast: 'Cast to a {bits} bit type is done by rounding to the nearest-integer (with ties to "
                      f"even) nearest-even integer'; out of range: Cast.txt, 'fixed point: undefined if OOR'")
    frm = {"float": "floating point", "bool": "bool"}.get(src.kind, "fixed point")
    dst = {"float": "floating point", "bool": "bool"}.get(to.kind, "fixed point")
    return FAMILY.spec_file, f"Casting from {frm} to: {dst}"


# ---------------------------------------------------------------------------------------
# edge catalogue
# ---------------------------------------------------------------------------------------
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
    return ref.format_number(np.float64(x), dtypes.get("double"))


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
    p = ref.parse_number(s)
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


# ---------------------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------------------
def _compare(v: Variant) -> dict:
    if v.to.kind == "string" and v.src.kind != "string":
        return {"mode": "parsed", "source_type": v.src.name,
                "reason": "Cast fixes no text format for numbers: the string is read back as a value",
                "tolerant": {"mode": "parsed", "rel": 1e-5}}
    return dict(EXACT)


@dataclass(frozen=True)
class Form:
    """How a variant's source elements become cases: the family that writes them, the node of a data set, and
    the data set of x. Cast's is CAST (x alone, `to` an attribute); an operator with Cast's semantics brings
    its own (CastLike: generator/families/cast_like.py)."""
    family: Family
    model: Callable[[Variant, list[np.ndarray], int], onnx.ModelProto]  # (variant, a data set, opset)
    dataset: Callable[[Variant, np.ndarray, int], list[np.ndarray]]  # (variant, x, case seed) -> the inputs

    def base(self, v: Variant) -> str:
        return f"{self.family.prefix}_{v.label}"


def _cast_model(v: Variant, inputs: list[np.ndarray], opset: int) -> onnx.ModelProto:
    shape = inputs[0].shape
    return node_model("Cast", [("input", v.src, shape)], [("output", v.to, shape)], v.attrs, opset)


CAST = Form(FAMILY, _cast_model, lambda v, x, seed: [x])


def cases_of(form: Form, v: Variant, what: str, x: np.ndarray, seed: int, flags: list[str], *,
             opset: int | None = None, compare: dict | None = None, undefined: list | None = None,
             probe_flags: tuple[str, ...] = ("probe",), **extra) -> Iterator[Case]:
    """The node case <base>_<what> (<base> if what is "") of x's defined elements and its probe of the others
    (generator.family.split); given `undefined` (a list), the undefined elements go there instead, for one
    probe of several sets. An x wholly defined keeps its shape (0-d, empty, 3-d cases). Each case cites the
    text its expectations come from (spec_of) and names the readings they rest on."""
    opset = opset or v.opset
    outcome, reading = v.explain(x, opset)
    sets, outcomes = [form.dataset(v, x, seed)], [outcome]
    if not outcome.defined:
        xd, kept, xu, _ = split_elements(x, outcome)
        reading = reading[~outcome.mask()]
        sets, outcomes = ([form.dataset(v, xd, seed)], [kept]) if xd.size else ([], [])
        if undefined is not None:
            undefined.append(xu)
        else:
            sets.append(form.dataset(v, xu, seed))
            outcomes.append(v.outcome(xu, opset) if xd.size else outcome)
    spec_file, clause = spec_of(v)
    meta = form.family.meta(opset=opset, spec_file=spec_file, clause=clause, seed=seed, params=v.params, flags=flags,
                            compare=compare or _compare(v), reading="; ".join(ref.readings(reading)) or None, **extra)
    name = f"{form.base(v)}_{what}" if what else form.base(v)
    yield from split(name, sets, outcomes, lambda inputs: form.model(v, inputs, opset), meta, probe_flags=probe_flags)


@dataclass(frozen=True)
class Context:
    """What a generation gives every case function: the profile's options, the seed, the newest opset, the
    groups of the family's witness catalogue."""
    profile: dict
    seed: int
    max_opset: int
    witnesses: dict

    def seed_of(self, form: Form, v: Variant) -> int:
        return sampling.case_seed(self.seed, form.base(v))


def _is_fnuz_sat_inf(v: Variant) -> bool:
    return v.to.nan_style == dtypes.FNUZ and v.saturate is True


def _without_inf(v: Variant, x: np.ndarray) -> np.ndarray:
    """x without +-Inf where the FNUZ saturate=1 row gives them their own case per semantics (fnuz_inf)."""
    if _is_fnuz_sat_inf(v) and v.src.is_float and x.size:
        return x[~np.isinf(x.astype(np.float64))]
    return x


# Cast's case functions, in the order a variant's cases are written: each (form, variant, context) -> cases
CATALOGUE = Catalogue()


@CATALOGUE
def data_sets(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The edge catalogue (edge_inputs), every bit pattern of a source of <= 8 bits (16 in the exhaustive
    profile) or seeded draws of a wider one, decimal strings with extreme exponents apart; one probe holds the
    undefined elements of them all."""
    profile, s = ctx.profile, ctx.seed_of(form, v)
    sets = [("edge", _without_inf(v, edge_inputs(v.src, v.to)), ["edge"])]
    if v.src.kind != "string" and (v.src.bits <= 8 and profile["exhaustive8"]
                                   or v.src.bits == 16 and profile["exhaustive16"]):
        everything = v.src.all_values() if v.src.kind != "bool" else np.array([False, True])
        sets.append(("exhaustive", _without_inf(v, everything), ["exhaustive"]))
    elif v.src.kind == "string" or v.src.bits > 8:
        rnd = _without_inf(v, random_inputs(v.src, v.to, profile["random"], s))
        if rnd.size:
            sets.append(("random", rnd, ["random"]))
    if v.src.kind == "string":
        extreme = [np.array(EXTREME_STRINGS, dtype=object)]
        for i, (what, x, flags) in enumerate(sets):
            far = np.array([_is_extreme(t) for t in x], dtype=bool)
            extreme.append(x[far])
            sets[i] = (what, x[~far], flags)
        sets.append(("extreme_exponent", _unique(np.concatenate(extreme), v.src), ["edge"]))
    undefined: list[np.ndarray] = []
    for what, x, flags in sets:
        yield from cases_of(form, v, what, x, s, flags, undefined=undefined)
    xu = np.concatenate(undefined) if undefined else np.array([])
    if xu.size:
        yield from cases_of(form, v, "", _unique(xu, v.src), s, ["probe"])


@CATALOGUE
def fnuz_inf(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The saturate=1 row for +-Inf -> FNUZ changed in Cast-24: one case per semantics."""
    if not (_is_fnuz_sat_inf(v) and v.src.has_inf):
        return
    x = np.array([np.inf, -np.inf], dtype=np.float64).astype(v.src.np_dtype)
    op = form.family.op
    for opset, semantics in ((19, f"{op}-19..23: +-Inf -> NaN"), (24, f"{op}-24+: +-Inf -> +-FLT_MAX")):
        opset = max(opset, v.opset)
        if opset > ctx.max_opset or (opset == v.opset and opset >= 24 and "-19..23" in semantics):
            continue
        yield from cases_of(form, v, f"inf_opset{opset}", x, ctx.seed_of(form, v), ["edge"], opset=opset,
                            semantics=semantics)


@CATALOGUE
def negative_nan(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """saturate=0 rows that state the sign of NaN: -NaN -> -NaN (E4M3FN, E5M2), -Inf -> -NaN (E4M3FN)."""
    if not (v.saturate is False and v.to.nan_style in (dtypes.FN, dtypes.IEEE) and v.src.is_float
            and v.src.negative_nan_bits is not None):
        return
    x = [v.src.from_bits(np.array([v.src.negative_nan_bits]))]
    if v.to.nan_style == dtypes.FN and v.src.has_inf:
        x.append(np.array([-np.inf]).astype(v.src.np_dtype))
    compare = dict(EXACT, nan_sign=True, reason="the saturate=0 table states the sign of NaN for these rows")
    yield from cases_of(form, v, "negative_nan", np.concatenate(x), ctx.seed_of(form, v), ["edge"], compare=compare)


@CATALOGUE
def shapes(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """0-d, empty and 3-d tensors, for pairs into and out of float32 (every type on both sides)."""
    if not ctx.profile["shapes"] or v.saturate is False or v.round_mode not in (None, "up"):
        return
    if "float" not in (v.src.name, v.to.name):
        return
    edge = edge_inputs(v.src, v.to)
    xd = split_elements(edge, v.outcome(edge))[0]
    if xd.size == 0:
        return
    for what, shape in {"scalar": (), "empty": (0,), "3d": (2, 3, 4)}.items():
        x = np.resize(xd, int(np.prod(shape))).reshape(shape)
        yield from cases_of(form, v, what, x, ctx.seed_of(form, v), ["shape"])


@CATALOGUE
def witness(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The committed witnesses of the variant's groups (generator/witness/catalogue/<family>.json): inputs on
    which a fault model of generator/reference/cast_faults.py and the reference differ. One case per group;
    the kill matrix writes which faults each data set kills. -NaN witnesses are left to negative_nan, the
    one case that compares the sign of NaN."""
    from generator.reference.cast_faults import group_key
    from generator.witness.cast import NAN_SIGN_FAULTS, decode

    for opset in sorted({v.opset, max(24, v.opset)}):
        entry = ctx.witnesses.get(group_key({"params": v.params, "opset": opset}))
        if entry is None or opset > ctx.max_opset:
            continue
        items = []
        for name, found in sorted(entry["faults"].items()):
            if name not in NAN_SIGN_FAULTS:
                items += [w for w in found.get("witnesses", []) if w not in items]
        if not items:
            continue
        x = decode(items, v.src)
        if not v.outcome(x, opset).defined:
            raise ValueError(f"{form.base(v)}: the witness catalogue holds inputs the spec leaves undefined")
        what = "witness" if opset == v.opset else f"witness_opset{opset}"
        yield from cases_of(form, v, what, x, ctx.seed_of(form, v), ["witness"], opset=opset)


# ---------------------------------------------------------------------------------------
# axes of generation (generator/axes.py; issue 21): Cast's groups under each axis
# ---------------------------------------------------------------------------------------
def explicit_opset(v: Variant, opset: int | None = None) -> int:
    """The opset of the explicit-defaults model of a variant's group at `opset` (default its first): the group's
    first opset that has the saturate attribute."""
    return max(opset or v.opset, 19)


def explicit_attrs(v: Variant, opset: int) -> dict:
    """The variant's attributes with every attribute the schema gives a default at `opset` written explicitly
    (saturate=1, and round_mode="up" from Cast-24), by ONNX name."""
    out = dict(v.attrs)
    for name, value in axes.attribute_defaults("Cast", opset).items():
        out.setdefault(name, value)
    return out


def _explicit_form(form: Form, v: Variant, opset: int) -> Form:
    """The form whose models write the schema's defaults on the node (axes.with_defaults)."""
    defaults = {k: a for k, a in explicit_attrs(v, opset).items() if k != "to"}

    def model(v_: Variant, inputs: list[np.ndarray], opset_: int) -> onnx.ModelProto:
        m = form.model(v_, inputs, opset_)
        node = axes.with_defaults(m.graph.node[0], defaults)
        m.graph.node[0].CopyFrom(node)
        return m

    return Form(form.family, model, form.dataset)


@CATALOGUE
def explicit_defaults(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The explicit-defaults axis: the variant's model with saturate=1 (Cast-19+) and round_mode="up" (Cast-24+)
    written, at its first opset that has them, on the inputs where a fault that reads a *present* attribute
    wrongly parts from the reference (the catalogue's explicit_witnesses). A target none of those faults touches
    (integers, bool, string, float4 / float6, double) gets no such model: the attribute decides nothing there."""
    from generator.reference.cast_faults import group_key
    from generator.witness.cast import PRESENT_ATTRIBUTE_FAULTS, decode

    if form.family is not FAMILY:
        return
    for group in sorted({v.opset, max(24, v.opset)}):  # the groups witness() writes: the FNUZ row's second one
        at = explicit_opset(v, group)
        entry = ctx.witnesses.get(group_key({"params": v.params, "opset": group}))
        if entry is None or at > ctx.max_opset:
            continue
        items: list[str] = []
        for name in PRESENT_ATTRIBUTE_FAULTS:
            items += [w for w in entry["faults"].get(name, {}).get("explicit_witnesses", []) if w not in items]
        if items:
            what = "explicit_defaults" if group == v.opset else f"explicit_defaults_opset{at}"
            yield from cases_of(_explicit_form(form, v, at), v, what, decode(items, v.src), ctx.seed_of(form, v),
                                ["edge", "explicit_defaults"], opset=at, group_opset=group)


# The NaN-payload axis judges NaN where Cast states the result: a float target (NaN -> NaN) and bool (NaN ->
# True). NaN -> integer, string, float4e2m1 and float6 is undefined (probe/), so payloads decide nothing there.
def _nan_payload_target(to: DType) -> bool:
    return to.kind == "bool" or to.is_float and to.has_nan


@CATALOGUE
def nan_payloads(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The NaN-payload axis: every NaN encoding kind of a NaN-capable source (axes.nan_values: quiet and
    signalling, smallest / largest / low-half payloads, both signs; every NaN of a float 8 type), built from bits,
    into each target where NaN has a stated result. Kills an add-and-shift float32 -> bfloat16 (a low payload
    carries into Inf) and a NaN test that misses signalling NaNs."""
    if form.family is not FAMILY or not (v.src.is_float and v.src.has_nan and _nan_payload_target(v.to)):
        return
    _, x = axes.nan_values(v.src)
    yield from cases_of(form, v, "nan_payloads", x, ctx.seed_of(form, v), ["edge", "nan_payloads"])


# Representative pairs of the vector-tail axis (Cast is element-wise: a kernel loops over vectors and finishes
# with a scalar or masked tail). Each is a kernel family a backend vectorizes on its own: IEEE narrowing and
# widening, float32 -> bfloat16 (add-and-shift), the float 8 tables with and without saturation, float8e8m0,
# packed sub-byte targets (two elements a byte: odd lengths end in half a byte), float4, truncation and wrapping
# to integers, and bool.
TAIL_PAIRS = (("float", "float16", None), ("float", "bfloat16", None), ("float16", "float", None),
              ("double", "float", None), ("float", "float8e4m3fn", True), ("float", "float8e4m3fn", False),
              ("float", "float8e5m2", False), ("float", "float8e4m3fnuz", True), ("float", "float8e8m0", True),
              ("float", "int4", None), ("float", "uint4", None), ("float", "float4e2m1", None),
              ("float", "int8", None), ("int32", "int8", None), ("float", "bool", None))


def _is_tail_group(v: Variant) -> bool:
    return (v.src.name, v.to.name, v.saturate) in TAIL_PAIRS and v.round_mode in (None, "up")


def _tail_filler(src: DType) -> np.ndarray:
    """An element every target converts exactly and that no fault changes: 1."""
    return np.array([True]) if src.kind == "bool" else _to_src([1], src)


@CATALOGUE
def vector_tail(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The vector-tail axis: one model with a symbolic length, one data set per length of
    axes.VECTOR_LENGTHS_SHORT, the group's witnesses last (in the partial last vector) after a filler of 1s."""
    from generator.reference.cast_faults import group_key
    from generator.witness.cast import NAN_SIGN_FAULTS, decode

    entry = ctx.witnesses.get(group_key({"params": v.params, "opset": v.opset}))
    if form.family is not FAMILY or entry is None or not _is_tail_group(v):
        return
    items: list[str] = []
    for name, found in sorted(entry["faults"].items()):
        if name not in NAN_SIGN_FAULTS:
            items += [w for w in found.get("witnesses", []) if w not in items]
    decisive = decode(items, v.src)
    if decisive.size == 0:
        return
    sets = axes.tail_datasets(_tail_filler(v.src), decisive, axes.tail_lengths(short=True))
    outcomes = [v.outcome(x) for x in sets]
    if not all(o.defined for o in outcomes):
        raise ValueError(f"{v.base_name}: a vector-tail data set holds inputs the spec leaves undefined")
    reading = sorted({r for x in sets for r in ref.readings(v.explain(x)[1])}, key=ref.READINGS.index)
    spec_file, clause = spec_of(v)
    meta = FAMILY.meta(opset=v.opset, spec_file=spec_file, clause=clause, seed=ctx.seed_of(form, v),
                       params=v.params, flags=["vector_tail"], compare=_compare(v), reading="; ".join(reading) or None,
                       lengths=list(axes.tail_lengths(short=True)))
    model = node_model("Cast", [("input", v.src, ("n",))], [("output", v.to, ("n",))], v.attrs, v.opset)
    yield from split(f"{v.base_name}_vector_tail", [[x] for x in sets], outcomes, lambda inputs: model, meta)


# Cast's semantic changes (onnx.defs Cast-1..28, Cast.txt): bfloat16 (13); float 8 and saturate (19); int4 /
# uint4 (21); float4e2m1 (23); float8e8m0, round_mode, the FNUZ +-Inf row (24); int2 / uint2 (25); float6 (28).
# The old rule's last opset is the opset below; a type's "opset below" has no Cast of it (its schema refuses it).
SEMANTIC_CHANGES = (13, 19, 21, 23, 24, 25, 28)


def _introduced_here(v: Variant) -> bool:
    """A variant that pairs float32 with a type some semantic change introduced (the pair's first opset)."""
    other = v.to if v.src.name == "float" else v.src if v.to.name == "float" else None
    return other is not None and other.name != "float" and other.cast_since == v.opset and v.opset in SEMANTIC_CHANGES


@CATALOGUE
def opset_boundaries(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The opset-boundary axis. The FNUZ +-Inf row (saturate=1): Cast-23 (the old row's last opset, beside the
    Cast-19 case of fnuz_inf) and Cast-25 (beside Cast-24); a rule switched on one opset early or late shows.
    A type introduced at a change, paired with float32: its witnesses one opset above its first (the new rule
    kept past its first opset)."""
    from generator.reference.cast_faults import group_key
    from generator.witness.cast import NAN_SIGN_FAULTS, decode

    if form.family is not FAMILY:
        return
    seed = ctx.seed_of(form, v)
    if _is_fnuz_sat_inf(v) and (v.src.has_inf or v.src.kind == "string"):
        x = (np.array(["INF", "-INF"], dtype=object) if v.src.kind == "string"
             else np.array([np.inf, -np.inf], dtype=np.float64).astype(v.src.np_dtype))
        for opset, semantics in ((23, "Cast-19..23: +-Inf -> NaN"), (25, "Cast-24+: +-Inf -> +-FLT_MAX")):
            # a string source has one group (its first opset): "INF" at Cast-24+ has no group of its own to join
            if v.opset <= opset <= ctx.max_opset and not (opset >= 24 and v.src.kind == "string"):
                group = v.opset if opset < 24 else max(24, v.opset)
                yield from cases_of(form, v, f"inf_opset{opset}", x, seed, ["edge", "opset_boundary"], opset=opset,
                                    semantics=semantics, group_opset=group)
    above = v.opset + 1
    entry = ctx.witnesses.get(group_key({"params": v.params, "opset": v.opset}))
    if _introduced_here(v) and above <= ctx.max_opset and entry is not None:
        items: list[str] = []
        for name, found in sorted(entry["faults"].items()):
            if name not in NAN_SIGN_FAULTS:
                items += [w for w in found.get("witnesses", []) if w not in items]
        if items:
            yield from cases_of(form, v, f"opset{above}", decode(items, v.src), seed, ["witness", "opset_boundary"],
                                opset=above, group_opset=v.opset)


def units(form: Form, catalogue: Catalogue, variants_: Iterable[Variant],
          ctx: Context) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation, one per variant (so callers can show progress or spread them): its cases, case
    function by case function of the catalogue."""
    def unit(v: Variant) -> Iterator[Case]:
        for fn in catalogue.values():
            yield from fn(form, v, ctx)

    return [lambda v=v: unit(v) for v in variants_]


def work(profile: str = "default", seed: int = 0, max_opset: int = NEWEST_CAST) -> list[Callable[[], Iterator[Case]]]:
    from generator import witness

    groups = witness.load(FAMILY.name)["groups"] if profile != "quick" else {}
    return units(CAST, CATALOGUE, variants(max_opset), Context(PROFILES[profile], seed, max_opset, groups))


# ---------------------------------------------------------------------------------------
# hunting (opconform hunt; generator/hunting.py)
# ---------------------------------------------------------------------------------------
# Cast opsets whose semantics differ (saturate 19, int4 21, float4 23, round_mode / FNUZ Inf 24, int2 and
# float6 25): a variant is hunted at its first opset and at each of these after it.
HUNT_OPSETS = (19, 21, 23, 24, 25)
HUNT_MAX_ELEMENTS = 16  # Cast is element-wise: more inputs per run, and a finding shrinks to one


def _hunt_opsets_of(v: Variant, max_opset: int) -> list[int]:
    return sorted({v.opset, *(o for o in HUNT_OPSETS if v.opset < o <= max_opset)})


@functools.lru_cache(maxsize=None)
def _hunt_opset(v: Variant, max_opset: int):
    from hypothesis import strategies as st

    return st.sampled_from(_hunt_opsets_of(v, max_opset))


_HUNT_POOLS: dict = {}


def hunt_pool(src: DType, to: DType) -> tuple[np.ndarray, np.ndarray]:
    """Inputs of src where a wrong Cast to `to` shows, in two pools drawn from as often:
    edges        the edge catalogue (extremes, signed zeros, NaN, Inf, the overflow boundary and its ties,
                 integer wrap points, every tie of an int4 / int2 target)
    constructed  the witness search's constructions: every rounding midpoint of the target, moved by a quarter
                 ulp of each wider intermediate type, and its neighbours; for integer sources every integer
                 midpoint of a float target and the integers next to it (where rounding through an
                 intermediate lands on the tie), and integers around 2**p; the decimal texts for strings."""
    key = (src.name, to.name)
    if key not in _HUNT_POOLS:
        floats, ints, texts = _target_candidates(to)
        edge = edge_inputs(src, to)
        if src.kind == "string":
            extra = np.array(texts, dtype=object)
        elif src.kind == "bool":
            extra = edge[:0]
        elif src.is_integer:
            extra = _to_src([c for c in ints if src.int_min <= c <= src.int_max], src)
        else:
            extra = _to_src(floats, src)
        _HUNT_POOLS[key] = edge, _unique(extra, src) if extra.size else extra
    return _HUNT_POOLS[key]


@functools.lru_cache(maxsize=None)
def _target_candidates(to: DType) -> tuple[list[float], list[int], list[str]]:
    """The witness search's constructions for a target, both signs: floats, integers, decimal texts."""
    from generator.witness import cast as search

    floats = [c for c in search._float_candidates(to) if math.isfinite(c)]
    ints = search._int_candidates(to)
    if to.is_float and to.nan_style != dtypes.E8M0 and to.bits <= 16:  # every integer midpoint, +-1 around it
        mids = [m for m in search._midpoints(to) if m >= 1 and m == int(m) and m < 2.0**63]
        ints = ints + [int(m) + d for m in mids for d in (-1, 0, 1)]
    texts = search._string_candidates() + [_decimal(v) for v in floats[:2000]]
    return floats + [-c for c in floats], ints + [-c for c in ints], texts


@functools.lru_cache(maxsize=None)
def _hunt_tensor(v: Variant):
    """1..HUNT_MAX_ELEMENTS elements of the variant's source (built once per variant: hypothesis validates a
    strategy the first time it draws from it)."""
    from hypothesis import strategies as st

    return st.lists(_hunt_elements(v), min_size=1, max_size=HUNT_MAX_ELEMENTS)


def _number_text():
    """Decimal literals [+-]?d{1,20}(.d{0,20})?([eE][+-]?d{1,3})?, the repr of any double, short printable text."""
    import string

    from hypothesis import strategies as st

    digits = st.text("0123456789", min_size=1, max_size=20)
    literal = st.tuples(st.sampled_from(["", "-", "+"]), digits,
                        st.one_of(st.just(""), st.text("0123456789", max_size=20).map(lambda d: "." + d)),
                        st.one_of(st.just(""), st.tuples(st.sampled_from("eE"), st.sampled_from(["", "-", "+"]),
                                                         st.text("0123456789", min_size=1, max_size=3)).map("".join)))
    return st.one_of(literal.map("".join), st.floats().map(repr), st.text(string.printable, max_size=8))


def _hunt_elements(v: Variant):
    """One element of the variant's source: from the edges or the constructed pool of hunt_pool (simplest
    first, where it shrinks to), or any value of the source (any bit pattern, uniformly: NaN payloads,
    subnormals, every exponent; any text), or (numeric sources) one of its specials or of the target's
    boundaries, in equal shares."""
    from hypothesis import strategies as st

    from generator import hunting

    src = v.src
    edge, constructed = hunt_pool(src, v.to)
    if src.kind == "string":
        parts = [hunting.any_of(list(edge)), hunting.any_of(list(constructed)), _number_text()]
    else:
        bits = [int(b) for b in src.to_bits(edge).tolist()] + hunting.nan_patterns(src)
        parts = [st.sampled_from(_specials(src)), hunting.any_of(list(dict.fromkeys(bits))),
                 hunting.any_of(_target_bounds(src, v.to))]
        if constructed.size:
            parts.append(hunting.any_of([int(b) for b in src.to_bits(constructed).tolist()]))
        parts.append(hunting.uniform_bits(src.bits) if src.kind != "bool" else st.sampled_from([0, 1]))
    return st.one_of(*parts)


@functools.lru_cache(maxsize=None)
def _target_bounds(src: DType, to: DType) -> list[int]:
    """Bit patterns (in src) of the target's own boundaries (generator.hunting.pool: its ends and one beyond,
    its ties at 0, at 1 and at the top, the overflow tie, the tie to 0 below its smallest subnormal)."""
    from generator import hunting

    x = _to_src([v for v in hunting.pool(to) if isinstance(v, int) or math.isfinite(v)], src)
    return list(dict.fromkeys(int(b) for b in src.to_bits(x).tolist())) or [0]


@functools.lru_cache(maxsize=None)
def _specials(src: DType) -> list[int]:
    """Bit patterns of the values every conversion must get right: +-0, +-1, +-Inf, every kind of NaN, the
    extremes, the smallest normal and subnormal (both signs where the type has them)."""
    if not src.is_float:
        vals = [0, 1, src.int_max, src.int_min] + ([-1] if src.int_min < 0 else []) if src.is_integer else [0, 1]
        return [int(b) for b in src.to_bits(np.array(vals, dtype=object).astype(src.np_dtype)).tolist()]
    mags = [0.0, 1.0, src.finite_max, src.smallest_normal, src.smallest_subnormal]
    vals = mags + ([-m for m in mags] if src.signed_float else [])
    x = _to_src(vals, src)
    nans = axes.nan_values(src)[1]  # every NaN kind, signalling ones included (the NaN-payload axis)
    bits = [int(b) for b in src.to_bits(np.concatenate([x, _special_values(src, []), nans])).tolist()]
    return list(dict.fromkeys(bits))


def _hunt_x(v: Variant, items: list) -> np.ndarray:
    if v.src.kind == "string":
        return np.array(items, dtype=object)
    if v.src.kind == "bool":
        return np.array(items, dtype=np.uint8).astype(bool)
    return v.src.from_bits(np.array(items, dtype=np.uint64))


def _hunt_args(v: Variant, opset: int, x: np.ndarray) -> dict:
    from generator.witness.cast import encode

    items = [str(b) for b in x.tolist()] if v.src.kind == "bool" else encode(x, v.src)
    return {"params": v.params, "opset": opset, "x": items}


def rebuild(args: dict, form: Form = CAST, first_opset=None):
    """The hunt example `args` describes (_hunt_args): the same input, expected outputs from the reference.
    form / first_opset(src, to): an operator built on Cast's case functions (CastLike) and its first opset."""
    from generator.witness.cast import decode

    p = args["params"]
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    sat = None if "saturate" not in p else bool(p["saturate"])
    opset = first_opset(src, to) if first_opset else max(src.cast_since, to.cast_since, MIN_OPSET)
    v = Variant(src, to, sat, p.get("round_mode"), opset)
    if src.kind == "bool":
        x = np.array([s == "True" for s in args["x"]], dtype=bool)
    else:
        x = decode(list(args["x"]), src)
    return hunt_example(v, int(args["opset"]), x, form)


def hunt_example(v: Variant, opset: int, x: np.ndarray, form: Form = CAST):
    """A hunt Example: the defined elements of x as a node case, the others as a probe."""
    from generator.hunting import Example

    cases = {c.kind: c for c in cases_of(form, v, "hunt", x, 0, ["hunt"], opset=opset, probe_flags=("hunt", "probe"))}
    return Example(cases.get("node"), cases.get("probe"), _hunt_args(v, opset, x))


def hunt(max_opset: int = NEWEST_CAST, form: Form = CAST, variants_of=None):
    """Cast examples, one slice per variant (from, to, saturate, round_mode): one of its opsets, and 1..16
    source elements biased to where the fault models part from the reference (hunt_pool). form / variants_of:
    an operator built on Cast's case functions (CastLike) and its variants."""
    from hypothesis import strategies as st

    @st.composite
    def example(draw, v: Variant):
        opset = draw(_hunt_opset(v, max_opset))
        items = draw(_hunt_tensor(v))
        return hunt_example(v, opset, _hunt_x(v, items), form)

    return {v.label: example(v) for v in (variants_of or variants)(max_opset)}
