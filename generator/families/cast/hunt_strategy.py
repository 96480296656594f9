"""Cast's live hunt (opconform hunt; generator/hunting.py): one slice per variant, drawing an opset of its semantics
and 1..16 source elements biased to where the fault models part from the reference; rebuild(args) remakes a
finding's example."""

from __future__ import annotations

import functools
import math

import numpy as np

from generator import axes, dtypes
from generator.catalogue.cast import decode, encode
from generator.dtypes import DType
from generator.families.cast.cases import CAST, Form, cases_of
from generator.families.cast.constructions import float_candidates, int_candidates, midpoints, string_candidates
from generator.families.cast.inputs import _decimal, _special_values, _to_src, _unique, edge_inputs
from generator.families.cast.variant import MIN_OPSET, NEWEST_CAST, Variant, variants

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
    floats = [c for c in float_candidates(to) if math.isfinite(c)]
    ints = int_candidates(to)
    if to.is_float and to.nan_style != dtypes.E8M0 and to.bits <= 16:  # every integer midpoint, +-1 around it
        mids = [m for m in midpoints(to) if m >= 1 and m == int(m) and m < 2.0**63]
        ints = ints + [int(m) + d for m in mids for d in (-1, 0, 1)]
    texts = string_candidates() + [_decimal(v) for v in floats[:2000]]
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
    items = [str(b) for b in x.tolist()] if v.src.kind == "bool" else encode(x, v.src)
    return {"params": v.params, "opset": opset, "x": items}


def rebuild(args: dict, form: Form = CAST, first_opset=None):
    """The hunt example `args` describes (_hunt_args): the same input, expected outputs from the reference.
    form / first_opset(src, to): an operator built on Cast's case functions (CastLike) and its first opset."""
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
