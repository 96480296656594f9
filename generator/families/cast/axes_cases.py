"""Cast's groups under the axes of generation (generator/axes.py; issue 21): the defaults written explicitly, NaN
payloads, vector tails and opset boundaries, each a case function (form, variant, context) -> cases."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import onnx

from generator import axes
from generator.case import Case, node_model
from generator.catalogue.cast import PRESENT_ATTRIBUTE_FAULTS, decode, value_witnesses
from generator.dtypes import DType
from generator.family import split
from generator.families.cast.cases import Context, Form, _compare, _is_fnuz_sat_inf, cases_of
from generator.families.cast.inputs import _to_src
from generator.families.cast.variant import FAMILY, Variant, spec_of
from generator.reference import cast as ref
from generator.reference.cast_faults import group_key


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


def explicit_defaults(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The explicit-defaults axis: the variant's model with saturate=1 (Cast-19+) and round_mode="up" (Cast-24+)
    written, at its first opset that has them, on the inputs where a fault that reads a *present* attribute
    wrongly parts from the reference (the catalogue's explicit_witnesses). A target none of those faults touches
    (integers, bool, string, float4 / float6, double) gets no such model: the attribute decides nothing there."""
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


def vector_tail(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The vector-tail axis: one model with a symbolic length, one data set per length of
    axes.VECTOR_LENGTHS_SHORT, the group's witnesses last (in the partial last vector) after a filler of 1s."""
    entry = ctx.witnesses.get(group_key({"params": v.params, "opset": v.opset}))
    if form.family is not FAMILY or entry is None or not _is_tail_group(v):
        return
    decisive = decode(value_witnesses(entry), v.src)
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


def opset_boundaries(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The opset-boundary axis. The FNUZ +-Inf row (saturate=1): Cast-23 (the old row's last opset, beside the
    Cast-19 case of fnuz_inf) and Cast-25 (beside Cast-24); a rule switched on one opset early or late shows.
    A type introduced at a change, paired with float32: its witnesses one opset above its first (the new rule
    kept past its first opset)."""
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
        items = value_witnesses(entry)
        if items:
            yield from cases_of(form, v, f"opset{above}", decode(items, v.src), seed, ["witness", "opset_boundary"],
                                opset=above, group_opset=v.opset)
