"""A model's Cast node as a case (generator/from_model/plan.py): the node's `to`, saturate and round_mode as written,
at the model's opset; the input's data from the Cast family's own values for the node's (from, to) pair
(generator/families/cast/): the group's committed witnesses (generator/witness/catalogue/cast.json), the edge
catalogue (+-0, +-Inf, NaN, the extremes, the target's overflow boundary and its ties, subnormals, integer wrap
points), then, as room allows, every bit pattern of a source of <= 16 bits, or the witness search's constructions
(the target's rounding midpoints and the values beside them) for a wider one. Elements the spec leaves undefined go
to one data set of their own (the probe); decimal strings with extreme exponents to another (strtod's ERANGE).
Random data: uniform in the calibration range, else the family's random draws for the pair. The witness search's
candidates mix the witnesses, the edges, the constructions and the family's random draws, element by element.

The case's params, clause, spec file and comparison are the family's for the same variant (Variant.params,
spec_of, the family's compare): a case of a model's node joins the family's group (from, to, saturate, round_mode,
opset). The sign of NaN is not compared (the family compares it only in its negative_nan case): the nan_sign faults
stay untold on a saturate=0 float8 node.

CastLike's adapter (generator/from_model/cast_like.py) builds its plan here too (node_plan), with its target_type.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx

from generator import dtypes, witness
from generator.catalogue.cast import decode
from generator.dtypes import DType
from generator.families.cast.cases import _compare
from generator.families.cast.constructions import midpoints
from generator.families.cast.hunt_strategy import hunt_pool
from generator.families.cast.inputs import (EXTREME_STRINGS, _is_extreme, _src_neighbors, _to_src, _unique, edge_inputs,
                                            random_inputs)
from generator.families.cast.variant import MIN_OPSET, Variant, attribute_options, spec_of
from generator.from_model.model_source import Site
from generator.from_model.plan import EDGE_ELEMENTS, MAX_EDGE_SETS, Context, Plan, tile
from generator.interpret import decode_attribute
from generator.reference import cast as ref
from generator.reference.cast_faults import group_key
from generator.reference.cast_reasons import ROUND_MODES
from generator.reference.cast_strings import format_number
from generator.sampling import Stream

OPS = (("", "Cast"),)
FIRST_OPSET = 6  # Cast-1 names `to` by a string ("FLOAT"); from Cast-6 on it is the enum the reference reads
RANDOM_DRAWS = 1024  # family draws per random data set at most; a larger tensor is filled with random bit patterns
DRAW_POOL = 256  # family random draws kept for the witness search's candidates
CONSTRUCTED = 1024  # midpoints of a 16-bit float target taken for the constructions
POOL_KEPT = 4096  # constructions kept per pair


def plan(site: Site, ctx: Context) -> Plan | str:
    if site.opset is None or site.opset < FIRST_OPSET:
        return f"Cast-{site.opset} names `to` by a string; the family's reference reads Cast-{FIRST_OPSET} on"
    attrs = attributes(site)
    if not isinstance(attrs.get("to"), int):
        return "the model's node is invalid: Cast has no integer `to` attribute"
    to = dtypes.find(attrs["to"])
    if to is None:  # an element type onnx has that this environment's registry leaves out (ml_dtypes too old)
        return dtypes.onnx_problem([attrs["to"]]) or f"the model's node is invalid: `to` is {attrs['to']}, no element type"
    x = site.inputs[0] if site.inputs else None
    if x is None or x.origin == "absent":
        return "the model's node is invalid: Cast has no input"
    if x.type is None:
        return "input's element type is unknown"
    why = accepts("Cast", site.opset, x.type, to)
    if why:
        return why
    v = variant(x.type, to, attrs, site.opset)
    if isinstance(v, str):
        return v
    return node_plan("cast", site, ctx, v, family_opset=max(x.type.cast_since, to.cast_since, MIN_OPSET))


def attributes(site: Site) -> dict:
    """The node's attributes by name, decoded as the references read them."""
    return {a.name: decode_attribute(a) for a in site.node.attribute}


def accepts(op: str, opset: int, src: DType, to: DType) -> str | None:
    """None where <op>-<opset> takes src as its input and `to` as its result type (T1, T2), else why not."""
    schema = onnx.defs.get_schema(op, opset)
    by = {c.type_param_str: {t[len("tensor("):-1] for t in c.allowed_type_strs} for c in schema.type_constraints}
    for what, t, param in (("input", src, "T1"), ("result", to, "T2")):
        if t.name not in by.get(param, ()):
            return f"the model's node is invalid: {op}-{schema.since_version} takes no {t.name} {what}"
    return None


def variant(src: DType, to: DType, attrs: dict, opset: int) -> Variant | str:
    """The family's variant of the node: saturate for float 8 targets, round_mode for float8e8m0 (as written, else
    their defaults); None where the attribute changes nothing for the target, as the family's params leave them."""
    if attribute_options(to) == [(None, None)]:
        return Variant(src, to, None, None, opset)
    saturate = bool(attrs.get("saturate", 1))
    mode = None
    if to.nan_style == dtypes.E8M0:
        mode = attrs.get("round_mode", "up")
        if mode not in ROUND_MODES:
            return f"the model's node is invalid: round_mode {mode!r} is none of {', '.join(ROUND_MODES)}"
    return Variant(src, to, saturate, mode, opset)


@dataclass(frozen=True)
class Pools:
    """The source values a case of the variant draws on, each as elements of the source, deduplicated by bits."""
    first: np.ndarray  # defined: the group's witnesses (the first `witnesses` of them), then the edge catalogue
    witnesses: int
    rest: np.ndarray  # defined, not in first: every bit pattern (<= 16-bit sources) or the constructions
    exhaustive: bool  # rest + first hold every bit pattern of the source
    constructed: np.ndarray  # defined constructions (the witness search's), for the draws
    randoms: np.ndarray  # defined family random draws, for the draws
    undefined: np.ndarray  # the elements of witnesses, edges and rest the spec leaves undefined
    extreme: np.ndarray  # defined decimal strings beyond float64's normal range (a set of their own)


def _defined(v: Variant, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the elements of x the reference defines, the others)."""
    if x.size == 0:
        return x, x
    mask = v.outcome(x).mask()
    return x[~mask], x[mask]


def _empty(src: DType) -> np.ndarray:
    return np.zeros(0, dtype=object if src.kind == "string" else src.np_dtype)


def _cat(parts: list[np.ndarray], src: DType) -> np.ndarray:
    parts = [p for p in parts if p.size]
    return _unique(np.concatenate([p.astype(parts[0].dtype) for p in parts]), src) if parts else _empty(src)


def committed_witnesses(family: str, v: Variant, opsets: list[int]) -> np.ndarray:
    """The witnesses (and explicit-defaults witnesses) the family's catalogue holds for the variant's group, at
    the first of `opsets` it has a group at (the model's opset, then the family's group of the same semantics);
    the sign-of-NaN faults' left out, as the family leaves them to the one case that compares that sign."""
    groups = _catalogue(family)
    for opset in opsets:
        entry = groups.get(group_key({"params": v.params, "opset": opset}))
        if entry is None:
            continue
        items: list[str] = []
        for name, found in sorted(entry["faults"].items()):
            if not name.endswith("nan_sign_lost"):
                items += [w for w in found.get("witnesses", []) + found.get("explicit_witnesses", []) if w not in items]
        return decode(items, v.src) if items else _empty(v.src)
    return _empty(v.src)


@functools.lru_cache(maxsize=4)
def _catalogue(family: str) -> dict:
    return witness.load(family)["groups"]


@functools.lru_cache(maxsize=64)
def pools(family: str, v: Variant, opsets: tuple[int, ...]) -> Pools:
    """The variant's pools (cached: a model casts the same pair at many nodes)."""
    src = v.src
    wit, wit_u = _defined(v, committed_witnesses(family, v, list(opsets)))
    edge = edge_inputs(src, v.to)
    small = src.kind != "string" and (src.kind == "bool" or src.bits <= 16)
    everything = (src.all_values() if src.kind != "bool" else np.array([False, True])) if small else _empty(src)
    # the constructions spread over at most POOL_KEPT of them (strings: a tenth; each is parsed exactly)
    cons, cons_u = _defined(v, spread(constructions(src, v.to), POOL_KEPT // (10 if src.kind == "string" else 1)))
    first, first_u = _defined(v, _cat([wit, edge], src))
    rest, rest_u = _defined(v, everything) if small else (cons, cons_u)
    if rest.size and first.size:
        rest = rest[~np.isin(_key(rest, src), _key(first, src))]
    # (random_inputs reads bool as 8 random bits: not a bool tensor's bytes)
    rnd, _ = _defined(v, random_inputs(src, v.to, DRAW_POOL, 0) if src.kind != "bool" else everything)
    extreme = _empty(src)
    if src.kind == "string":  # strtod-based parsers report ERANGE on these: their own data set (the family's case)
        far = [np.array([_is_extreme(s) for s in a], dtype=bool) for a in (first, rest, cons, rnd)]
        extreme, _ = _defined(v, _cat([np.array(EXTREME_STRINGS, dtype=object), first[far[0]], rest[far[1]]], src))
        first, rest, cons, rnd = (a[~f] for a, f in zip((first, rest, cons, rnd), far))
    witnesses = int(np.isin(_key(first, src), _key(wit, src)).sum()) if wit.size and first.size else 0
    return Pools(first, witnesses, rest, small, cons, rnd, _cat([wit_u, first_u, rest_u], src), extreme)


def constructions(src: DType, to: DType) -> np.ndarray:
    """Source values where a wrong Cast to `to` shows: the witness search's constructions (hunt_pool); for a 16-bit
    float target, whose every midpoint they enumerate (a second per target), CONSTRUCTED of its midpoints spread over
    its range (the overflow one and the subnormal ones kept) with their neighbours in the source."""
    if src.kind == "bool":
        return _empty(src)
    if not (to.is_float and to.bits == 16 and src.is_float):
        return hunt_pool(src, to)[1]
    mids = spread(np.array(midpoints(to)), CONSTRUCTED)
    x = _to_src(list(mids) + list(-mids), src)
    return _unique(np.concatenate([x, _src_neighbors(x, src)]), src)


def _key(a: np.ndarray, src: DType) -> np.ndarray:
    """Elements as comparable keys: bit patterns (strings as themselves)."""
    return a.astype(str) if src.kind == "string" else src.to_bits(a)


def spread(a: np.ndarray, k: int) -> np.ndarray:
    """k elements of a spread evenly over it, both ends kept (all of a where it holds no more)."""
    if k <= 0:
        return a[:0]
    if a.size <= k:
        return a
    return a[np.unique(np.linspace(0, a.size - 1, k).round().astype(np.int64))]


def edge_data(p: Pools, shape: tuple[int, ...], src: DType) -> tuple[list[np.ndarray], np.ndarray | None, bool]:
    """The edge data sets of x's shape (at most MAX_EDGE_SETS, EDGE_ELEMENTS elements in all, or one set of a larger
    tensor): the witnesses first, the edge catalogue, then the rest spread evenly over the room left; each value
    tiled so that a tensor holds them all cyclically. And the probe's set of the undefined values (None: none), and
    whether the sets hold every defined value of first and rest (for a <= 16-bit source: every bit pattern)."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return [np.zeros(shape, dtype=p.first.dtype)], None, False
    count = max(1, min(MAX_EDGE_SETS, EDGE_ELEMENTS // n))
    room = count * n
    first = p.first
    if first.size > room:  # the witnesses, then the edge catalogue spread over what is left
        keep = min(p.witnesses, room)
        first = _cat([first[:keep], spread(first[keep:], room - keep)], src)
    chosen = _cat([first, spread(p.rest, room - first.size)], src)
    sets = [tile(chosen, shape, offset=i * n) for i in range(max(1, -(-chosen.size // n)))] if chosen.size else []
    if p.extreme.size:
        sets.append(tile(spread(p.extreme, n), shape))
    probe = tile(spread(p.undefined, n), shape) if p.undefined.size else None
    return sets, probe, chosen.size == p.first.size + p.rest.size


def in_range(src: DType, lo: float, hi: float, n: int, stream: Stream) -> np.ndarray:
    """n values of src uniform in [lo, hi] (calibration): integers there, floats rounded to src, numbers' texts."""
    if src.kind == "bool":
        pick = [b for b in (False, True) if lo <= b <= hi] or [False, True]
        return np.array(pick)[stream.integers(0, len(pick) - 1, size=n)]
    if src.is_integer:
        a, b = max(math.ceil(lo), src.int_min), min(math.floor(hi), src.int_max)
        a, b = (a, b) if a <= b else (min(max(round(lo), src.int_min), src.int_max),) * 2
        return np.array(stream.integers(a, b, size=n).tolist(), dtype=object).astype(src.np_dtype)
    u = stream.uniform(lo, hi, n)
    if src.kind == "string":
        return np.array([format_number(np.float64(x), dtypes.get("double")) for x in u], dtype=object)
    return ref.cast_outcome(u, "double", src, saturate=True).outputs[0]


def random_values(v: Variant, n: int, stream: Stream, given: tuple[float, float] | None) -> np.ndarray:
    """n defined values of the source: uniform in the calibration range where given, else the family's random draws
    (specials, any bit pattern, values at the target's scale; beyond RANDOM_DRAWS, random bit patterns)."""
    src = v.src
    if given is not None:
        vals = in_range(src, float(given[0]), float(given[1]), 2 * n, stream)
    elif src.kind == "bool":
        vals = stream.booleans(size=n)
    else:
        vals = random_inputs(src, v.to, min(n, RANDOM_DRAWS) * 2, stream.integers(0, 2**62))
        if n > RANDOM_DRAWS and src.kind != "string":
            vals = np.concatenate([vals, src.from_bits(stream.bits(src.bits, 2 * n))])
    if src.kind == "string":  # extreme exponents have their own edge set (strtod's ERANGE)
        vals = vals[~np.array([_is_extreme(t) for t in vals], dtype=bool)] if vals.size else vals
    good, _ = _defined(v, vals)
    return good[:n] if good.size else good


def draw_values(p: Pools, n: int, stream: Stream) -> np.ndarray:
    """n candidates, each from one pool chosen at random: the witnesses (again), the witnesses and edges, the
    constructions, the family's random draws; all defined."""
    choices = [a for a in (p.first[:p.witnesses], p.first, p.constructed, p.randoms, p.rest) if a.size]
    kinds = stream.integers(0, len(choices) - 1, size=n)
    out = choices[0][stream.integers(0, choices[0].size - 1, size=n)]
    for k, pool in enumerate(choices[1:], 1):
        idx = stream.integers(0, pool.size - 1, size=n)
        sel = kinds == k
        out[sel] = pool[idx[sel]]
    return out


def node_plan(family: str, site: Site, ctx: Context, v: Variant, *, family_opset: int,
              computed: dict[int, np.ndarray] | None = None,
              reading: Callable[[np.ndarray, object], tuple[str, ...]] | None = None) -> Plan | str:
    """The plan of a Cast-like node of the variant: x (input 0) from the pools where the model does not hold it;
    `computed`, each other generated input's one tensor (CastLike's target_type); `reading`, extra readings of a
    data set (x, Outcome). family_opset: the first opset of the family's group of the pair."""
    x = site.inputs[0]
    computed = computed or {}
    generated = sorted(([] if x.constant else [0]) + list(computed))

    def data(xv) -> list:
        got = {0: xv, **computed}
        return [got[j] for j in generated]

    def outcome(args: list):
        o, per = v.explain(np.asarray(args[0], dtype=object if v.src.kind == "string" else v.src.np_dtype))
        found = tuple(ref.readings(per[~o.mask()]))
        return o, found + (reading(args[0], o) if reading else ())

    spec_file, clause = spec_of(v)
    common = dict(spec_file=spec_file)
    if x.constant:
        return Plan(family, v.params, clause, _compare(v), generated, [data(None)], None, None, outcome, **common)
    if x.shape is None:
        return "input's shape is unknown"
    shape, n = x.shape, int(np.prod(x.shape, dtype=np.int64))
    semantics = family_opset if v.opset < 24 else max(24, family_opset)
    p = pools(family, v, (v.opset, semantics, family_opset))
    sets, probe, complete = edge_data(p, shape, v.src)
    edges = [data(s) for s in sets] + ([data(probe)] if probe is not None else [])
    given = ctx.range(x.name)
    fallback = p.first if p.first.size else p.extreme

    def random(stream: Stream) -> list:
        vals = random_values(v, n, stream, given)
        return data(tile(vals if vals.size else fallback, shape))

    def draw(stream: Stream) -> list:
        return data(draw_values(p, n, stream).reshape(shape))

    note = ("calibration" if given is not None else
            "the Cast family's random draws for the pair (specials, any bit pattern, values at the target's scale)")
    flags = ("exhaustive",) if p.exhaustive and complete and p.undefined.size <= n else ()
    # Cast is element-wise: where the edges hold all of first and rest (rest: the constructions, or every pattern),
    # a draw from them can tell apart no fault the edges do not (a large tensor: the search would only cost)
    searched = n and p.first.size and not complete
    return Plan(family, v.params, clause, _compare(v), generated, edges, draw if searched else None,
                random if n and fallback.size else None, outcome, flags=flags, range_note=note,
                group_opset=_group_opset(family, v, (semantics, family_opset)), **common)


def _group_opset(family: str, v: Variant, candidates: tuple[int, ...]) -> int | None:
    """The opset of the family's group of the same meaning, where the catalogue has none at the node's own."""
    groups = _catalogue(family)
    if group_key({"params": v.params, "opset": v.opset}) in groups:
        return None
    return next((o for o in candidates if group_key({"params": v.params, "opset": o}) in groups), None)
