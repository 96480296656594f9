"""Live hunting, the generator's side: what a family's hunt strategy draws, and the value pools that bias it
toward the boundaries the fault models name (docs/design.md, "Runners": `opconform hunt`; docs/hunting.md).

A family that can be hunted exposes in its module (generator/families/<family>.py)

    hunt(max_opset: int) -> hypothesis.strategies.SearchStrategy[Example]
                             | dict[str, SearchStrategy[Example]]   (slices, by label)

A family whose parameter space is wide returns slices (Cast: one per target type): the hunter gives each
slice its turn, so that every part of the space is searched whatever the budget. (hypothesis, left to
choose among hundreds of parameter groups in one strategy, mutates the examples it has and keeps to a
few: 117 of Cast's 792 (from, to) variants in 600 examples.)

Each drawn Example holds a case built the way the family builds its suite cases: the model, one data set,
the expected outputs from the family's reference (generator/reference/), and case.json metadata with
"params" and "opset" (the fault module's group_key reads them). Inputs whose result the spec leaves
undefined are never judged: the strategy moves them to the example's probe case (kind "probe"), or drops
them. The case's name is the family's; the hunter renames what it keeps.

Kept findings (`opconform hunt --keep`) are rebuilt by gen-cases from what was drawn, never from stored
outputs: an Example carries `args`, plain JSON from which the family's

    rebuild(args: dict) -> Example

builds the same example again, expected outputs from the reference of the day (generator/witness/__init__.py,
"hunted" entries of a catalogue). A family without `rebuild` can be hunted but not kept.

Shrinking is hypothesis': a strategy should shrink toward small tensors and simple values (draw the element
count from a small range, put the simplest choices first in a sampled_from, draw bit patterns as integers,
which shrink toward 0).

runners/hunt.py runs the examples on a backend; this module never imports a runner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Sequence

import numpy as np

from generator import dtypes
from generator.case import Case
from generator.dtypes import DType


@dataclass
class Example:
    case: Case | None  # node / graph / negative: what the backend must do (None: every drawn input was undefined)
    probe: Case | None = None  # the drawn inputs whose result the spec leaves undefined (kind "probe")
    args: dict | None = None  # plain JSON: the family's rebuild(args) gives this example again (None: cannot)


def slices_of(module: ModuleType, max_opset: int) -> dict:
    """The family module's hunt strategy as slices: {label: strategy} ({} if it has none)."""
    hunt = getattr(module, "hunt", None)
    if hunt is None:
        return {}
    drawn = hunt(max_opset)
    if drawn is None:  # nothing to hunt up to this opset
        return {}
    return dict(drawn) if isinstance(drawn, dict) else {"all": drawn}


# ---------------------------------------------------------------------------------------
# value pools: where wrong implementations part from the reference
# ---------------------------------------------------------------------------------------
def ulp(x: float, t: DType) -> float:
    """The spacing of float type t at magnitude |x| (its subnormal spacing below the normal range)."""
    e = max(math.frexp(abs(x))[1] - 1, t.min_exponent) if x else t.min_exponent
    return math.ldexp(1.0, e - t.mantissa_bits)


def float_boundaries(t: DType) -> list[float]:
    """Positive values where rounding to float type t goes wrong in practice: its extremes, the overflow
    tie (max + ulp/2) and just around it, the smallest subnormal and half of it (the tie to 0), the
    subnormal/normal border, ties between consecutive values in the subnormals, at 1 and at the top
    binade, and each tie moved by a quarter ulp of float16 / bfloat16 / float32 (what a wider
    intermediate rounds onto the tie). float8e8m0 (powers of two): the geometric and arithmetic
    midpoints around 1 and at its ends."""
    if not t.is_float:
        return []
    if t.nan_style == dtypes.E8M0:
        out = []
        for k in (-127, -126, -1, 0, 1, 126, 127):
            p = math.ldexp(1.0, k)
            out += [p, 1.5 * p, math.sqrt(2) * p, 0.75 * p, math.nextafter(1.5 * p, 0), math.nextafter(1.5 * p, 2 * p)]
        return [v for v in out if math.isfinite(v)]
    big, sub, normal = t.finite_max, t.smallest_subnormal, t.smallest_normal
    top = ulp(big, t)
    ties = [sub / 2, sub * 1.5, normal - sub / 2, 1 + ulp(1.0, t) / 2, 1 + 1.5 * ulp(1.0, t),
            big - top / 2, big + top / 2]
    out = [big, sub, normal, 1.0, 2.0, 0.5, 1.5, 2.5, big + top, 2 * big] + ties
    for m in ties:
        for w in ("float16", "bfloat16", "float"):
            u = ulp(m, dtypes.get(w))
            if u < ulp(m, t):
                out += [m + u / 4, m - u / 4]
        out += [math.nextafter(m, math.inf), math.nextafter(m, 0)]
    return [v for v in out if math.isfinite(v) and v > 0]


def int_boundaries(t: DType) -> list[int | float]:
    """Values where conversion to integer type t goes wrong: its ends and one beyond, 0, +-1, the
    ties k + 0.5 at both ends and around 0 (round-half-even vs away / up / truncation), and the wrap
    points 2**bits (+-1)."""
    if not t.is_integer:
        return []
    lo, hi = t.int_min, t.int_max
    return [0, 1, -1, lo, hi, lo - 1, hi + 1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, hi - 0.5, hi + 0.5, lo + 0.5,
            lo - 0.5, 1 << t.bits, (1 << t.bits) - 1, -(1 << t.bits)]


def pool(target: DType) -> list[float]:
    """Signed values (as Python floats / ints) at the boundaries of a target type: the simplest first
    (0, 1, -1, ...), then both signs of every boundary."""
    simple = [0, 1, -1, 2, 0.5, -0.5, -0.0]
    bounds = float_boundaries(target) + int_boundaries(target)
    return simple + [v for b in bounds for v in (b, -b)]


def nan_patterns(t: DType) -> list[int]:
    """Bit patterns of NaN in float type t: the canonical one(s) and payloads (quiet / signalling, sign)."""
    if not t.is_float or not t.has_nan:
        return []
    out = [t.nan_bits] + ([t.negative_nan_bits] if t.negative_nan_bits is not None else [])
    if t.nan_style == dtypes.IEEE:
        exp = ((1 << t.exponent_bits) - 1) << t.mantissa_bits
        for m in (1, 1 << (t.mantissa_bits - 1) | 1, (1 << t.mantissa_bits) - 1):
            out += [exp | m, t.sign_mask | exp | m]
    return sorted(set(out))


def as_elements(values: Sequence, src: DType) -> np.ndarray:
    """Pool values as elements of a numeric source type: a float source rounds them (ml_dtypes, RNE; beyond
    its range -> +-Inf or its NaN, what the source can hold), an integer or bool source keeps the integers
    in its range."""
    if src.kind == "bool":
        return np.array(sorted({bool(v) for v in values if v == v}), dtype=bool)
    if src.is_integer:
        kept = [int(v) for v in values if float(v).is_integer() and src.int_min <= v <= src.int_max]
        return np.array(kept, dtype=object).astype(src.np_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array([float(v) for v in values], dtype=np.float64).astype(src.np_dtype)
    return x


def any_of(pool: Sequence):
    """One element of a long pool, each about as likely as any other; shrinks toward the first.

    (hypothesis' sampled_from draws its index as an integer biased toward small values: from a pool of
    hundreds it keeps to the first few dozen.)"""
    from hypothesis import strategies as st

    items = list(pool)
    if len(items) <= 16:
        return st.sampled_from(items)
    return uniform_bits(32).map(lambda i: items[i % len(items)])


def uniform_bits(bits: int):
    """An integer of `bits` random bits, each as likely 0 as 1; shrinks toward 0. (hypothesis' integers() favours
    small values: raw float bit patterns drawn with it are mostly subnormals.)"""
    from hypothesis import strategies as st

    n = (bits + 7) // 8
    mask = (1 << bits) - 1
    return st.binary(min_size=n, max_size=n).map(lambda b: int.from_bytes(b, "little") & mask)


def elements(src: DType, values: Sequence, *, extra_bits: Sequence[int] = (), any_bits: bool = True):
    """A strategy of one element of numeric type src, as its bit pattern (an int): one of `values` (each
    converted by as_elements; the simplest first: that is where it shrinks to), one of `extra_bits`, or
    (any_bits) any bit pattern of src (subnormals, NaN payloads, every exponent)."""
    from hypothesis import strategies as st

    picked = [int(b) for b in src.to_bits(as_elements(values, src)).tolist()] if len(values) else []
    picked += [int(b) for b in extra_bits]
    picked = list(dict.fromkeys(picked))
    parts = [any_of(picked)] if picked else []
    if any_bits or not parts:
        parts.append(uniform_bits(src.bits))
    return st.one_of(*parts)


def array_of(src: DType, bits: Sequence[int], shape: tuple | None = None) -> np.ndarray:
    """A tensor of src from bit patterns (elements strategies draw), reshaped to `shape` (default 1-D)."""
    a = src.from_bits(np.array(list(bits), dtype=np.uint64))
    return a.reshape(shape if shape is not None else (len(bits),))
