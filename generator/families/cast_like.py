"""The CastLike family: CastLike(input, target_type) casts input to target_type's element type, with Cast's
rules and attributes (generator/reference/cast_like.py). Cast's family checks those rules at length; this one
checks that CastLike applies them, that it takes the type (and nothing else) from target_type, and that it
reads saturate / round_mode as Cast does.

One variant per (from, to, saturate, round_mode) pair of types CastLike accepts, at the first CastLike opset
accepting both (onnx.defs CastLike-15..25: CastLike has no float6). For each, Cast's case functions
(generator/families/cast/) with fewer data than Cast's suite: the edge catalogue (strings with extreme
exponents apart), one probe of its undefined elements, the FNUZ Inf row once per semantics, the rows that state
the sign of NaN, and the witnesses of Cast's fault models (generator/witness/catalogue/cast_like.json, Cast's
catalogue group by group: generator/witness/cast_like.py). No exhaustive, random or shape cases but in the
exhaustive profile (exhaustive narrow sources and draws).

target_type is a tensor of the target type with a shape and values drawn from the case's seed (a scalar, an
empty tensor or a 2-d / 3-d one): never input's shape, so a backend that reads it for more than its type fails.

The axes of generation (generator/axes.py, issue 21), in this family's own case functions:
  <name>_explicit_defaults  the attributes CastLike-<opset> gives a default (saturate=1, round_mode="up") written
                            with it, on the elements where another value of them, or a fault that misreads a
                            present attribute, gives another result (default-attribute variants only)
  <name>_nan_payloads       every NaN encoding kind of a NaN-capable source, signalling ones and low-bit payloads
                            included, built from bits: Cast's "NaN -> NaN" (one variant per pair, where defined;
                            not where the edge case holds every encoding already: float8 sources but float8e5m2)
  <name>_vector_tails       TAIL_PAIRS only: the group's witnesses and NaN payloads last in tensors of every length
                            of axes.tail_lengths(short), one model with a symbolic length
  <name>_inf_opset<N>, <name>_witness_opset<N>
                            opset boundaries (BOUNDARIES): the FNUZ saturate=1 +-Inf row at 23 / 24 / 25 beside 19,
                            and the opset just above each change that brought a type or attribute, for one pair each
                            (below it the pair does not exist); each boundary group holds its witnesses and the
                            explicit-defaults elements, with the defaults written
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import onnx

from generator import axes, dtypes, sampling
from generator.case import Case, node_model
from generator.catalogue.cast import decode
from generator.dtypes import DType
from generator.families import cast
from generator.families.cast.cases import EXACT, Context, Form, _compare, _is_fnuz_sat_inf, cases_of
from generator.families.cast.inputs import _unique, edge_inputs
from generator.families.cast.variant import Variant, attribute_options, spec_of
from generator.family import Catalogue, Family, split
from generator.reference import cast as cast_ref
from generator.reference.cast_reasons import ROUND_MODES
from generator.reference.cast_faults import group_key

FAMILY = Family("cast_like", "CastLike", "Cast.txt")
GRID = cast.GRID
OPSETS = tuple(sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == FAMILY.op}))
MIN_OPSET = OPSETS[0]
NEWEST = OPSETS[-1]

PROFILES = {
    "quick": dict(cast.PROFILES["quick"]),
    "default": dict(cast.PROFILES["quick"]),  # edges and witnesses
    "exhaustive": dict(cast.PROFILES["default"], shapes=False),
}

# shapes of target_type: none is a 1-d input's, whatever its length
TARGET_SHAPES = ((), (0,), (2, 3), (3, 1, 2))
TARGET_TEXTS = ("", "0", "1.5", "NaN", "text")


def _accepted(opset: int) -> tuple[set[str], set[str]]:
    """The type names CastLike-<opset> accepts for input (T1) and target_type / output (T2)."""
    schema = onnx.defs.get_schema(FAMILY.op, opset)
    by = {c.type_param_str: {t[len("tensor("):-1] for t in c.allowed_type_strs} for c in schema.type_constraints}
    return by["T1"], by["T2"]


def first_opset(src: DType, to: DType) -> int | None:
    """The first CastLike opset accepting src as input and `to` as target type (None: none does)."""
    for opset in OPSETS:
        t1, t2 = _accepted(opset)
        if src.name in t1 and to.name in t2:
            return opset
    return None


def variants(max_opset: int) -> Iterator[Variant]:
    """Cast's variants (generator.families.attribute_options) of every pair CastLike accepts."""
    types = dtypes.cast_types(cast.NEWEST_CAST)
    for src in types:
        for to in types:
            opset = first_opset(src, to)
            if opset is not None and opset <= max_opset:
                yield from (Variant(src, to, sat, mode, opset) for sat, mode in attribute_options(to))


def target_type(to: DType, seed: int) -> np.ndarray:
    """An arbitrary tensor of `to`: a shape of TARGET_SHAPES and any bit patterns, from the seed."""
    s = sampling.Stream(seed)
    shape = TARGET_SHAPES[s.integers(0, len(TARGET_SHAPES) - 1)]
    n = int(np.prod(shape))
    if to.kind == "string":
        return np.array([s.choice(TARGET_TEXTS) for _ in range(n)], dtype=object).reshape(shape)
    return to.from_bits(s.bits(1 if to.kind == "bool" else to.bits, n)).reshape(shape)


def _model(v: Variant, inputs: list[np.ndarray], opset: int) -> onnx.ModelProto:
    x, target = inputs
    attrs = {k: a for k, a in v.attrs.items() if k != "to"}  # the type comes from target_type
    return node_model(FAMILY.op, [("input", v.src, x.shape), ("target_type", v.to, target.shape)],
                      [("output", v.to, x.shape)], attrs, opset)


def _dataset(v: Variant, x: np.ndarray, seed: int) -> list[np.ndarray]:
    return [x, target_type(v.to, seed)]


def _explicit_model(v: Variant, inputs: list[np.ndarray], opset: int) -> onnx.ModelProto:
    """The node with every attribute CastLike-<opset> gives a default written, with that default where v leaves
    it out (axes.with_defaults)."""
    m = _model(v, inputs, opset)
    node = axes.with_defaults(m.graph.node[0], axes.attribute_defaults(FAMILY.op, opset))
    m.graph.node[0].CopyFrom(node)
    return m


def _tail_model(v: Variant, inputs: list[np.ndarray], opset: int) -> onnx.ModelProto:
    """One model for every length: input and output of the symbolic length "n"."""
    x, target = inputs
    attrs = {k: a for k, a in v.attrs.items() if k != "to"}
    return node_model(FAMILY.op, [("input", v.src, ("n",)), ("target_type", v.to, target.shape)],
                      [("output", v.to, ("n",))], attrs, opset)


CASTLIKE = Form(FAMILY, _model, _dataset)
EXPLICIT = Form(FAMILY, _explicit_model, _dataset)

# Cast's case functions that apply here, in Cast's order, then the axes'
CATALOGUE = Catalogue()
for _fn in (cast.data_sets, cast.fnuz_inf, cast.negative_nan, cast.witness):
    CATALOGUE(_fn)


def _default_attributes(v: Variant) -> bool:
    """v leaves saturate and round_mode at their defaults (the one variant of a pair the axes take)."""
    return v.saturate is not False and v.round_mode in (None, "up")


def _alternatives(v: Variant, opset: int) -> list[dict]:
    """The other values of the attributes v leaves out, where CastLike-<opset> has them and they change anything
    for v's target (the attributes v writes kept)."""
    saturate, mode = v.saturate is not False, v.round_mode or "up"
    out = []
    if saturate and opset >= 19 and (v.to.is_float8 or v.to.nan_style == dtypes.E8M0):
        out.append({"saturate": False, "round_mode": mode})
    if mode == "up" and opset >= 24 and v.to.nan_style == dtypes.E8M0:
        out += [{"saturate": saturate, "round_mode": m} for m in ROUND_MODES if m != "up"]
    return out


def _present_faults(v: Variant, opset: int) -> list:
    """The fault models that read a present attribute (name holds "present") and can differ in v's group."""
    from generator.faults import group_params
    from generator.reference import cast_like_faults

    p = group_params({"params": v.params, "opset": opset})
    return [f for f in cast_like_faults.FAULTS if "present" in f.name and f.applies(p) and f.equivalent(p) is None]


def _differs(a: np.ndarray, b: np.ndarray, to: DType) -> np.ndarray:
    from generator.faults import same_elements

    return ~same_elements(np.asarray(a), np.asarray(b).astype(a.dtype) if to.kind != "string" else b, to)


def group_opsets(v: Variant, max_opset: int) -> list[int]:
    """Every opset v has a group at: its first, 24 for the FNUZ saturate=1 row (Cast's second group), and the
    boundary axis's."""
    out = {v.opset, *boundary_opsets(v, max_opset)}
    if _is_fnuz_sat_inf(v) and v.src.has_inf and v.opset < 24 <= max_opset:
        out.add(24)
    return sorted(out)


def _decisive_for_defaults(v: Variant, x: np.ndarray, y: np.ndarray, opset: int, seed: int) -> np.ndarray:
    """Per element of x (defined, results y): another value of an attribute v leaves out, or a fault that
    misreads a present attribute, gives another result at `opset`."""
    decisive = np.zeros(x.shape, dtype=bool)
    for alt in _alternatives(v, opset):
        z = cast_ref.cast_outcome(x, v.src, v.to, opset=opset, **alt)
        decisive |= _differs(y, z.outputs[0], v.to) & ~z.mask()
    model = _explicit_model(v, _dataset(v, x, seed), opset)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    attrs = {k: (a.decode() if isinstance(a, bytes) else a) for k, a in attrs.items()}
    for f in _present_faults(v, opset):
        try:
            z = f.fn(_dataset(v, x, seed), attrs, opset, [v.src, v.to])[0]
        except Exception:  # noqa: BLE001 - a fault that cannot run here decides nothing
            continue
        decisive |= _differs(y, z, v.to)
    return decisive


@CATALOGUE
def explicit_defaults(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """Axis explicit defaults: every attribute CastLike-<opset> gives a default and v leaves out (saturate=1,
    round_mode="up") written with it, in each of v's groups (group_opsets), on the defined edge elements that
    another value of those attributes or a fault reading a present attribute (cast_like.present_*) maps
    otherwise: an implementation that misreads a present attribute fails here."""
    seed = ctx.seed_of(form, v)
    merged = _boundary_witness_opsets(v, ctx.max_opset)  # there the boundary's witness case writes them
    for opset in group_opsets(v, ctx.max_opset):
        x = explicit_default_elements(v, opset, seed) if opset not in merged else []
        if len(x):
            what = "explicit_defaults" if opset == v.opset else f"explicit_defaults_opset{opset}"
            yield from cases_of(EXPLICIT, v, what, x, seed, ["edge", "explicit_defaults"], opset=opset)


def _writes_defaults(v: Variant, opset: int) -> bool:
    """CastLike-<opset> gives a default to an attribute v leaves out."""
    return bool(set(axes.attribute_defaults(FAMILY.op, opset)) - set(v.attrs))


def explicit_default_elements(v: Variant, opset: int, seed: int) -> np.ndarray:
    """The defined edge elements of v at `opset` that another value of an attribute v leaves out, or a fault
    reading a present attribute, maps otherwise (empty where CastLike-<opset> has no such attribute)."""
    edge = edge_inputs(v.src, v.to)  # +-Inf kept: at Cast-24+ saturate decides them for the FNUZ types
    if not _writes_defaults(v, opset) or not edge.size:
        return edge[:0]
    outcome = v.outcome(edge, opset)
    x, y = edge[~outcome.mask()], outcome.outputs[0][~outcome.mask()]
    return x[_decisive_for_defaults(v, x, y, opset, seed)] if x.size else x


@CATALOGUE
def nan_payloads(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """Axis NaN payloads: every NaN encoding kind of the source (axes.nan_values: quiet and signalling, low-bit
    payloads, both signs), from bits. Cast: NaN -> NaN (float targets), True (bool), 0xFF (float8e8m0); one
    variant per pair, where the result is defined (NaN -> integer / float4 / string is not)."""
    if not _default_attributes(v) or not v.src.is_float:  # (axes.nan_values raises for strings)
        return
    labels, x = axes.nan_values(v.src)
    if set(v.src.to_bits(x).tolist()) <= set(v.src.to_bits(edge_inputs(v.src, v.to)).tolist()):
        return  # the edge case holds every NaN encoding already (float8: one or two)
    if not x.size or v.outcome(x).mask().all():
        return
    yield from cases_of(form, v, "nan_payloads", x, ctx.seed_of(form, v), ["edge", "nan_payloads"],
                             nan_kinds=labels)


# The vector-tail axis on the conversions backends vectorize (SIMD kernels with a scalar remainder) and that round:
# float32 -> float16 (F16C vcvtps2ph, NEON fcvtn), float32 -> bfloat16 (add-and-shift / AVX512-BF16 vcvtneps2bf16),
# float32 -> float8e4m3fn (onnxruntime's MLFloat8 conversion), float64 -> float32 (cvtpd2ps), int32 <-> float32
# (cvtdq2ps / cvttps2dq). One representative per kernel family: the other pairs go through the same loops. The
# widening ones (float16 / bfloat16 -> float32) are exact: a wrong tail there shows only as skipped elements, which
# the narrowing pairs' tails show as well.
TAIL_PAIRS = (("float", "float16"), ("float", "bfloat16"), ("float", "float8e4m3fn"), ("double", "float"),
              ("int32", "float"), ("float", "int32"))


def _witness_items(v: Variant, ctx: Context, opset: int) -> np.ndarray:
    """The committed witnesses of v's group at `opset` (the witness catalogue), as elements of the source."""
    entry = ctx.witnesses.get(group_key({"params": v.params, "opset": opset}))
    items: list = []
    for name, found in sorted((entry or {}).get("faults", {}).items()):
        if not name.endswith(".nan_sign_lost"):  # the sign of NaN is compared only in negative_nan
            items += [w for w in found.get("witnesses", []) if w not in items]
    return decode(items, v.src) if items else np.zeros(0, dtype=object if v.src.kind == "string" else v.src.np_dtype)


@CATALOGUE
def vector_tails(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """Axis vector tails (TAIL_PAIRS): the group's witnesses and the source's NaN payloads last in tensors of
    every length of axes.tail_lengths(short=True), the rest 1 (exact in every type): the decisive elements sit
    in the partial last vector of every width that does not divide the length. One model, length "n"."""
    if (v.src.name, v.to.name) not in TAIL_PAIRS or not _default_attributes(v):
        return
    nans = axes.nan_values(v.src)[1] if v.src.is_float else np.zeros(0, v.src.np_dtype)
    decisive = np.concatenate([_witness_items(v, ctx, v.opset), nans])
    if not decisive.size:
        return
    decisive = decisive[~v.outcome(decisive).mask()]
    filler = np.ones(1, dtype=v.src.np_dtype)
    seed = ctx.seed_of(form, v)
    xs = axes.tail_datasets(filler, decisive, axes.tail_lengths(short=True))
    explained = [v.explain(x) for x in xs]
    spec_file, clause = spec_of(v)
    reading = "; ".join(cast_ref.readings(np.concatenate([r for _, r in explained]))) or None
    meta = FAMILY.meta(opset=v.opset, spec_file=spec_file, clause=clause, seed=seed, params=v.params,
                       flags=["edge", "vector_tails"], compare=_compare(v), reading=reading,
                       lengths=[int(x.size) for x in xs])
    yield from split(f"{form.base(v)}_vector_tails", [_dataset(v, x, seed) for x in xs], [o for o, _ in explained],
                     lambda inputs: _tail_model(v, inputs, v.opset), meta)


# The opset-boundary axis. CastLike's semantic changes (onnx.defs CastLike-15..25): 19 saturate and the float8
# types, 21 int4 / uint4, 23 float4e2m1, 24 round_mode, float8e8m0 and the FNUZ saturate=1 +-Inf row (NaN ->
# +-FLT_MAX), 25 int2 / uint2. The FNUZ row changes values of pairs that exist on both sides: 23, 24, 25 (beside
# 19, the first). The others bring a type or an attribute: below the change the pair does not exist, so one pair
# per change gets the opset just above it (a kernel registered for one opset range only).
FNUZ_ROW_CHANGE = 24
JUST_ABOVE = {("float", "float8e4m3fn"): 19, ("float", "int4"): 21, ("float", "float4e2m1"): 23,
              ("float", "float8e8m0"): 24, ("float", "int2"): 25}


def _inf_row(v: Variant) -> np.ndarray | None:
    """+-Inf of v's source where v is a FNUZ saturate=1 variant (the row Cast-24 changed): floats with Inf, and
    the strings "INF" / "-INF"; None elsewhere."""
    if not _is_fnuz_sat_inf(v):
        return None
    if v.src.kind == "string":
        return np.array(["INF", "-INF"], dtype=object)
    if v.src.is_float and v.src.has_inf:
        return np.array([np.inf, -np.inf], dtype=np.float64).astype(v.src.np_dtype)
    return None


def boundary_opsets(v: Variant, max_opset: int) -> list[int]:
    """The opsets beside v's first (and 24, Cast's own second group of the FNUZ row) that the boundary axis gives
    v's pair: 23 and 25 for the FNUZ saturate=1 row, the opset just above the change that brought the pair."""
    out = set()
    if _inf_row(v) is not None:
        out |= set(axes.boundary_opsets([FNUZ_ROW_CHANGE], MIN_OPSET, max_opset)) - {FNUZ_ROW_CHANGE}
    change = JUST_ABOVE.get((v.src.name, v.to.name))
    if change is not None and change == v.opset:
        out.add(change + 1)
    return sorted(o for o in out if v.opset < o <= max_opset)


def _negative_nan_at(form: Form, v: Variant, opset: int, seed: int) -> Iterator[Case]:
    """cast.negative_nan's rows (the saturate=0 table states the sign of NaN) at another opset of v."""
    if not (v.saturate is False and v.to.nan_style in (dtypes.FN, dtypes.IEEE) and v.src.is_float
            and v.src.negative_nan_bits is not None):
        return
    x = [v.src.from_bits(np.array([v.src.negative_nan_bits]))]
    if v.to.nan_style == dtypes.FN and v.src.has_inf:
        x.append(np.array([-np.inf]).astype(v.src.np_dtype))
    compare = dict(EXACT, nan_sign=True, reason="the saturate=0 table states the sign of NaN for these rows")
    yield from cases_of(form, v, f"negative_nan_opset{opset}", np.concatenate(x), seed,
                             ["edge", "opset_boundary"], opset=opset, compare=compare)


@CATALOGUE
def boundaries(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """Axis opset boundaries (boundary_opsets): at each opset, the FNUZ +-Inf row (with the semantics that opset
    has) and the witnesses of the group there (the witness catalogue maps it to Cast's group of the same
    semantics), so that every fault model is told apart in the boundary's group too."""
    seed = ctx.seed_of(form, v)
    for opset in boundary_opsets(v, ctx.max_opset):
        x = _inf_row(v)
        if x is not None:
            rule = "+-Inf -> NaN" if opset < FNUZ_ROW_CHANGE else "+-Inf -> +-FLT_MAX"
            # it joins v's first group too (case.json group_opset, as Cast's boundary cases do): the row switched on
            # one opset early differs only here
            yield from cases_of(form, v, f"inf_opset{opset}", x, seed, ["edge", "opset_boundary"], opset=opset,
                                     semantics=f"{FAMILY.op}-{opset}: {rule}", group_opset=v.opset)
        yield from _negative_nan_at(form, v, opset, seed)
        if opset not in _boundary_witness_opsets(v, ctx.max_opset):
            continue  # cast.witness writes that one
        x = _witness_items(v, ctx, opset)
        if x.size and not v.outcome(x, opset).defined:
            raise ValueError(f"{form.base(v)}: the witness catalogue holds inputs the spec leaves undefined")
        # one case for the boundary's group: its witnesses, and the explicit-defaults axis's elements with the
        # defaults written (explicit_defaults leaves this opset to it)
        extra = explicit_default_elements(v, opset, seed)
        if _inf_row(v) is not None:  # the boundary's own row, in the boundary's group
            extra = np.concatenate([extra, _inf_row(v)])
        x = _unique(np.concatenate([x.astype(extra.dtype) if x.size else extra[:0], extra]), v.src)
        if x.size:
            flags = ["witness", "opset_boundary"] + (["explicit_defaults"] if _writes_defaults(v, opset) else [])
            yield from cases_of(EXPLICIT if _writes_defaults(v, opset) else form, v, f"witness_opset{opset}",
                                     x, seed, flags, opset=opset)


def _boundary_witness_opsets(v: Variant, max_opset: int) -> list[int]:
    """The boundary opsets whose witness case `boundaries` writes (cast.witness writes the one at 24 or v's)."""
    return [o for o in boundary_opsets(v, max_opset) if o != max(24, v.opset)]


# The reading a judged round_mode down / nearest element rests on (docs/readings.md#castlike-round-mode): the
# schema documents round_mode for CastLike-24 / 25, onnx's own function body for them drops it.
READING_ROUND_MODE = ("CastLike-24+ applies round_mode as Cast does: its schema lists the attribute ('Please refer to "
                      "operator Cast description'), but onnx's own CastLike-24 / 25 function body, Cast <to, saturate>, "
                      "drops it (onnx 1.23.2); read as the schema, which names the attribute, over the body "
                      "(docs/readings.md#castlike-round-mode)")


def mark_round_mode_reading(case: Case) -> Case:
    """Add READING_ROUND_MODE to a judged case of a round_mode down / nearest variant where some expected element
    differs from what round_mode up (the function body's Cast) gives."""
    p = case.meta.get("params") or {}
    if case.kind != "node" or p.get("round_mode") in (None, "up") or case.meta["opset"] < 24:
        return case
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    for inputs, outputs in zip(case.inputs, case.outputs):
        up = cast_ref.cast_outcome(inputs[0], src, to, saturate=bool(p.get("saturate", 1)), round_mode="up",
                                   opset=case.meta["opset"]).outputs[0]
        if _differs(outputs[0], up, to).any():
            case.meta["reading"] = "; ".join(r for r in (case.meta.get("reading"), READING_ROUND_MODE) if r)
            break
    return case


def work(profile: str = "default", seed: int = 0, max_opset: int = NEWEST) -> list[Callable[[], Iterator[Case]]]:
    from generator import witness

    groups = witness.load(FAMILY.name)["groups"] if profile != "quick" else {}
    units = cast.units(CASTLIKE, CATALOGUE, variants(max_opset), Context(PROFILES[profile], seed, max_opset, groups))
    return [lambda unit=unit: (mark_round_mode_reading(c) for c in unit()) for unit in units]


def hunt(max_opset: int = NEWEST):
    """Cast's hunt (one slice per variant, inputs biased to where its fault models part from the reference) as
    CastLike nodes; a target_type of a seeded shape and bits, which must not matter."""
    if max_opset < MIN_OPSET:
        return None
    return {label: strategy.map(_marked) for label, strategy in cast.hunt(max_opset, CASTLIKE, variants).items()}


def rebuild(args: dict):
    """The hunt example `args` describes, as CastLike (cast.rebuild)."""
    return _marked(cast.rebuild(args, CASTLIKE, first_opset))


def _marked(example):
    """A hunt Example whose judged case carries READING_ROUND_MODE where it rests on it."""
    if example.case is not None:
        mark_round_mode_reading(example.case)
    return example
