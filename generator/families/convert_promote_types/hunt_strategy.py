"""ConvertPromoteTypes' live hunt (generator/hunting.py): one group and one data set per example, built as the
cases are (Variant, negative_case, value_cases), biased to where the fault models part from the reference;
rebuild(args) remakes a finding's example."""

from __future__ import annotations

import functools
import math

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.families.convert_promote_types.cases import negative_case, onnx_opset, value_cases
from generator.families.convert_promote_types.constructions import constructed
from generator.families.convert_promote_types.groups import group_params, group_variants
from generator.families.convert_promote_types.variant import (FAMILY, MIN_OPSET, SHAPES, U64_TARGETS, Variant,
                                                              variant_name)
from generator.reference import cast as cast_ref
from generator.reference import convert_promote_types as ref
from generator.reference import convert_promote_types_faults as faults
from generator.reference.convert_promote_types_faults.values import value_can_differ, value_witnesses


HUNT_SHAPES = ("dim_dim", "scalar_dim", "dim_scalar", "scalar_scalar")
HUNT_COUNTS = (1, 2, 3, 4, 5, 6, 1, 1)  # elements of a dimensioned input
# the type each via_* value fault rounds through first
_VIA = {"via_float64": "double", "via_float32": "float", "via_float16": "float16"}


@functools.lru_cache(maxsize=None)
def hunt_groups(max_opset: int) -> dict[str, tuple[Variant, ...]]:
    """Fault name -> the family's parameter groups (their first variants, generator.witness.convert_promote_types)
    where the fault can differ from the reference (no `equivalent` proof), within max_opset."""
    out: dict[str, list[Variant]] = {f.name: [] for f in faults.FAULTS}
    for _, v in sorted(group_variants(max_opset).items()):
        params = group_params(v)
        for f in faults.FAULTS:
            if f.applies(params) and f.equivalent(params) is None:
                out[f.name].append(v)
    return {name: tuple(vs) for name, vs in out.items()}


def _bits_of(src: DType, v) -> int:
    """The bit pattern of a Python number as an element of src (hunting.as_elements; an integer beyond src's
    range is clamped to it)."""
    from generator import hunting

    if src.is_integer and isinstance(v, int):
        v = min(max(v, src.int_min), src.int_max)
    return int(src.to_bits(hunting.as_elements([v], src)).reshape(-1)[0])


def _ties(src: DType, grid: DType, inter: DType | None):
    """Elements of src (bit patterns) at or beside the midpoint of two neighbours of float type `grid`, the
    lower one (2**m + k) * 2**(e - m) (k at both ends of the binade first; e = min_exponent - 1: the
    subnormal binade, k * 2**(min_exponent - m)), where a conversion that rounds twice goes the other way:
      integers  the midpoint + d; aimed (inter given): binades where inter's ulp is 4 or more and
                1 <= |d| < inter's half ulp there (inter rounds midpoint + d onto the midpoint), d on the
                side the midpoint's tie (to even) does not round to; else any binade and d in -3..3;
      floats    the midpoint, one ulp of src beside it, or a quarter ulp of an intermediate (f64 / f32 / f16)
                beside it; aimed: a quarter ulp of inter, on the side the tie does not round to.
    None where src holds no such value (bool, or integers all exact in grid)."""
    from hypothesis import strategies as st

    from generator import hunting

    m = grid.mantissa_bits
    k = st.sampled_from([0, (1 << m) - 1]) | st.integers(0, (1 << m) - 1)
    top = math.floor(math.log2(grid.finite_max))
    off = (lambda k: 1 if k % 2 == 0 else -1)  # midpoint + off goes up / down where the tie goes to the even k

    def midpoint(e: int, k: int) -> float:
        lower = k if e < grid.min_exponent else (1 << m) + k
        try:
            return math.ldexp(lower + 0.5, max(e, grid.min_exponent) - m)
        except OverflowError:  # f64's overflow tie
            return math.inf

    if src.is_integer:
        lo, hi = m + 1, min(src.int_max.bit_length() - 1, top)
        if inter is not None:
            lo = max(lo, inter.mantissa_bits + 2)
        if lo > hi:
            return None
        sign = st.sampled_from([1, -1] if src.int_min < 0 else [1])
        e = st.sampled_from([lo, hi]) | st.integers(lo, hi)

        def integer(e, k, d, sign):
            mid = (((1 << m) + k) << (e - m)) + (1 << (e - m - 1))
            if inter is not None:  # 1 <= |d| < inter's half ulp at the midpoint: inter rounds onto it
                d = off(k) * (1 + d % max(1, (1 << (e - inter.mantissa_bits - 1)) - 1))
            return _bits_of(src, sign * (mid + d))

        d = st.integers(0, 1 << 16) if inter is not None else st.sampled_from([0, 1, -1, 2, -2, 3, -3])
        return st.builds(integer, e, k, d, sign)
    if not src.is_float:
        return None
    if inter is not None:
        moves = st.just(("quarter", inter))
    else:
        moves = st.sampled_from([("tie", None), ("up", None), ("down", None)]
                                + [(q, dtypes.get(n)) for n in _VIA.values() for q in ("quarter", "-quarter")])

    def floating(e, k, move, sign):
        mid = midpoint(e, k)
        how, t = move
        if how in ("up", "down"):
            with np.errstate(over="ignore"):
                x = np.array(sign * mid, dtype=np.float64).astype(src.np_dtype)
            return int(src.to_bits(np.nextafter(x, np.array(np.inf if how == "up" else -np.inf,
                                                             dtype=src.np_dtype)).reshape(1))[0])
        if how == "tie" or not math.isfinite(mid):
            return _bits_of(src, sign * mid)
        side = off(k) if inter is not None else (1 if how == "quarter" else -1)
        return _bits_of(src, sign * (mid + side * hunting.ulp(mid, t) / 4))

    e = st.sampled_from([0, grid.min_exponent - 1, top]) | st.integers(grid.min_exponent - 1, top)
    return st.builds(floating, e, k, moves, st.sampled_from([1.0, -1.0]))


def _within(src: DType, to: DType):
    """Elements of src (bit patterns) that the common type holds exactly, where it is narrower than src (the
    defined values: pytorch_scalar_promotion's dimensioned type, a narrower u64_integer_promotion_target): an
    integer of to's range; a float of `to` (any bit pattern, exact in the wider src). None elsewhere."""
    from hypothesis import strategies as st

    if src.is_integer and to.is_integer and (to.int_min > src.int_min or to.int_max < src.int_max):
        lo, hi = max(src.int_min, to.int_min), min(src.int_max, to.int_max)
        return st.integers(lo, hi).map(lambda v: _bits_of(src, v))
    if src.is_float and to.is_float and to.bits < src.bits:
        def exact(b: int) -> int:
            y = cast_ref.cast_outcome(to.from_bits(np.array([b], dtype=np.uint64)), to, src).outputs[0]
            return int(src.to_bits(np.asarray(y).reshape(1))[0])
        return st.integers(0, (1 << to.bits) - 1).map(exact)
    return None


@functools.lru_cache(maxsize=None)
def _hunt_values(src: DType, to: DType, focus: str | None) -> tuple[tuple, tuple, tuple]:
    """(pooled values, hints, specials) of src converted to `to`. Pooled: the boundaries of src and
    of the common type (hunting.pool: the simplest first), of int32 / uint32 beside a 64-bit integer common type
    (int64_held_in_32_bits), of f32 beside f64 (f64_held_in_f32). Hints: where each value fault that can
    differ here (the focused one only, if any) does: the fault module's exhaustive witnesses for a type of
    <= 16 bits, the witness search's constructions for a wider one. Specials: the bit patterns of NaN
    (payloads, signs), of +-Inf."""
    from generator import hunting
    pools = [hunting.pool(src), hunting.pool(to)]
    if to.is_integer and to.bits == 64:
        pools += [hunting.pool(dtypes.get("int32")), hunting.pool(dtypes.get("uint32"))]
    if to == dtypes.get("double"):
        pools.append(hunting.pool(dtypes.get("float")))
    hints: list = []
    for f in faults.VALUE_FAULTS:
        name = faults.short_name(f)
        if focus not in (None, f.name) or value_can_differ(name, src, to) is not None:
            continue
        if src.bits <= 16 or src.kind == "bool":
            hints += value_witnesses(name, src.name, to.name)
        elif name not in _VIA:  # (the via_* faults' midpoints: _ties)
            hints += constructed(name, src, to)
    specials: list[tuple[int, ...]] = []
    if src.is_float:
        specials.append(tuple(hunting.nan_patterns(src)))
        if src.has_inf:
            specials.append(tuple(int(b) for b in src.to_bits(np.array([np.inf, -np.inf]).astype(src.np_dtype))))
    return tuple(v for p in pools for v in p), tuple(hints), tuple(specials)


@functools.lru_cache(maxsize=None)
def _hunt_element(src: DType, to: DType, focus: str | None, aim: bool = False):
    """One element of src (its bit pattern) converted to `to`: a pooled value or any bit pattern, NaN or an
    infinity, a value `to` holds (_within), a hint (_hunt_values), a midpoint of `to` and its neighbours
    (_ties; integers at f32's midpoints too where `to` is f64). aim: only the values aimed at the focused
    value fault (its hints, the midpoints its intermediate rounds onto), where there are any."""
    from hypothesis import strategies as st

    from generator import hunting

    values, hints, specials = _hunt_values(src, to, focus)
    generic = [hunting.elements(src, values, any_bits=src.kind != "bool")] + [st.sampled_from(b) for b in specials]
    within = _within(src, to)
    if within is not None:
        generic.append(within)
    short = (focus or "").split(".")[-1]
    inter = dtypes.get(_VIA[short]) if short in _VIA else None
    aimed = [hunting.elements(src, hints, any_bits=False)] if hints else []
    if to.is_float:
        grids = [to] + ([dtypes.get("float")] if to == dtypes.get("double") else [])
        generic += [t for t in (_ties(src, g, None) for g in grids) if t is not None]
        if inter is not None:
            aimed += [t for t in (_ties(src, g, inter) for g in grids) if t is not None]
    if aim and aimed:
        return st.one_of(*aimed)
    return st.one_of(*generic, *aimed)


def _defined_element(src: DType, to: DType):
    """An element of src whose conversion to `to` is defined: a value `to` holds (_within), else 0, 1, -1 ...
    (every type holds 0 and 1)."""
    from generator import hunting

    within = _within(src, to)
    return within if within is not None else hunting.elements(src, [0, 1, -1, 2, 0.5], any_bits=False)


def _encode(x: np.ndarray, t: DType) -> list:
    """Values as plain JSON, exactly: integers and booleans as they are, floats as bit patterns ("0x7e00")."""
    if t.kind == "bool":
        return [bool(v) for v in x.tolist()]
    if t.is_integer:
        return [int(v) for v in x.tolist()]
    return [f"0x{int(b):0{(t.bits + 3) // 4}x}" for b in t.to_bits(x).reshape(-1).tolist()]


def _decode(values: list, t: DType) -> np.ndarray:
    if t.kind == "bool":
        return np.array(values, dtype=bool)
    if t.is_integer:
        return np.array(values, dtype=object).astype(t.np_dtype)
    return t.from_bits(np.array([int(v, 16) for v in values], dtype=np.uint64))


def hunt_example(v: Variant, values: list[np.ndarray]):
    """The hunt Example of a variant (its shapes drawn) and the values of its two inputs (1-D; a scalar's one
    data set per value): the negative case where safe mode refuses the pair, else value_cases' node case of
    the defined values and probe of the undefined ones. args: the variant and the values, plain JSON."""
    from generator.hunting import Example

    d = v.decision
    unsafe = v.unsafe_common
    args = {"opset": onnx_opset(v.t0, v.t1, d.common or unsafe),
            "params": {k: x for k, x in v.params.items() if k != "attributes"}, "written": v.written,
            "shapes": [list(sh) for sh in v.shapes],
            "input_0": _encode(values[0], v.t0), "input_1": _encode(values[1], v.t1)}
    if d.common is None:
        return Example(negative_case(v, d, 0, ["hunt"]), None, args)
    made = {c.kind: c for c in value_cases(v, d, v.name, values, 0, ["hunt"])}
    return Example(made.get("node"), made.get("probe"), args)


def _variant(t0: DType, t1: DType, shapes: tuple, unsafe: bool, pytorch: bool, target: str,
             written: tuple | None) -> Variant:
    ranks = tuple(len(sh) for sh in shapes)
    key = "_".join("scalar" if r == 0 else "dim" for r in ranks)
    return Variant(t0, t1, ranks, unsafe, pytorch, target, written=written, shapes=shapes,
                   name=variant_name(t0, t1, key, unsafe, pytorch, target) + "_hunt")


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same inputs, expected outputs from the reference."""
    p = args["params"]
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    written = None if args["written"] is None else tuple(args["written"])
    v = _variant(t0, t1, tuple(tuple(sh) for sh in args["shapes"]), bool(p["promote_unsafe"]),
                 bool(p["pytorch_scalar_promotion"]), p["u64_integer_promotion_target"], written)
    return hunt_example(v, [_decode(args["input_0"], t0), _decode(args["input_1"], t1)])


def hunt(max_opset: int):
    """The hunt strategy (generator/hunting.py): one group (pair, ranks, attributes) and one data set per
    example (hunt_example: the negative case where safe mode must refuse the pair, else the node case of the
    defined values and the probe of the undefined ones, built as every case here).

    Biases: 3 draws in 4 focus on a fault model and take a group where it can differ (hunt_groups); a value
    fault is focused on twice as often, half the time with every element aimed at it (_hunt_element). The
    others draw any pair of [CPT]'s types, ranks, attributes and u64_integer_promotion_target. A dimensioned
    input has 1 to 6 elements (one: what scalar_by_element_count takes for a scalar), rank 1 or 2; an input
    none of whose elements is defined gets one more that is (_defined_element), so that most draws judge
    something. Half the nodes leave out the attributes at their defaults. None below opset 13 (the function
    body's Cast needs bfloat16)."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    from generator import hunting
    groups = {name: vs for name, vs in hunt_groups(max_opset).items() if vs}
    # (fault, aim): a value fault also with every element aimed at it (_hunt_element)
    value_faults = {f.name for f in faults.VALUE_FAULTS}
    focuses = [(name, False) for name in sorted(groups)]
    focuses += [(name, True) for name in sorted(groups) if name in value_faults]
    types = [t for t in ref.spec_types() if t.cast_since <= max_opset]
    targets = [ref.DEFAULT_TARGET] + [n for n in U64_TARGETS if ref.element_type(n).cast_since <= max_opset]

    @st.composite
    def examples(draw):
        focus, aim = draw(st.sampled_from(focuses)) if draw(st.integers(0, 3)) else (None, False)
        if focus is None:
            t0, t1 = draw(st.sampled_from(types)), draw(st.sampled_from(types))
            ranks = SHAPES[draw(st.sampled_from(HUNT_SHAPES))]
            unsafe, pytorch, target = draw(st.booleans()), draw(st.booleans()), draw(st.sampled_from(targets))
        else:
            g = draw(st.sampled_from(groups[focus]))
            t0, t1, ranks, unsafe, pytorch, target = g.t0, g.t1, g.ranks, g.unsafe, g.pytorch, g.target
        # elements of each dimensioned input, one element often (3 in 8); where the focus is the fault that
        # takes a one-element tensor for a scalar, one dimensioned input has one element
        counts = [draw(st.sampled_from(HUNT_COUNTS)) if r else 0 for r in ranks]
        if focus == f"{FAMILY.name}.scalar_by_element_count" and any(ranks):
            counts[draw(st.sampled_from([k for k, r in enumerate(ranks) if r]))] = 1
        shapes = tuple(() if r == 0 else (n,) if draw(st.booleans()) else (1, n) for r, n in zip(ranks, counts))
        changed = {"promote_unsafe": unsafe, "pytorch_scalar_promotion": pytorch,
                   "u64_integer_promotion_target": target != ref.DEFAULT_TARGET}
        written = tuple(a for a, c in changed.items() if c) if draw(st.booleans()) else None
        v = _variant(t0, t1, shapes, unsafe, pytorch, target, written)
        d = v.decision
        cands = []
        for t, s in zip((t0, t1), shapes):
            if d.common is None:  # a negative case: no values
                cands.append(np.zeros(0, dtype=t.np_dtype))
                continue
            n = int(np.prod(s, dtype=np.int64))
            element = _hunt_element(t, d.common, focus if focus in value_faults else None, aim)
            x = hunting.array_of(t, draw(st.lists(element, min_size=n, max_size=n)))
            if ref.convert(x, t, d.common).mask().all():  # one more: a value the common type holds
                x = np.concatenate([x, hunting.array_of(t, [draw(_defined_element(t, d.common))])])
            cands.append(x)
        return hunt_example(v, cands)

    return examples()
