"""Cast's case functions: how a variant's source elements become cases (Form, cases_of), what a generation gives
each of them (Context), and the catalogue's own data sets: the edge catalogue with exhaustive or random inputs, the
FNUZ Inf row, the rows that state the sign of NaN, shapes, and the committed witnesses. Each is
(form, variant, context) -> cases; the family (generator/families/cast/__init__.py) lists them in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import onnx

from generator import dtypes, sampling
from generator.case import Case, node_model
from generator.catalogue.cast import decode, value_witnesses
from generator.family import Family, split, split_elements
from generator.families.cast.inputs import EXTREME_STRINGS, _is_extreme, _unique, edge_inputs, random_inputs
from generator.families.cast.variant import FAMILY, Variant, spec_of
from generator.reference import cast as ref
from generator.reference.cast_faults import group_key

EXACT = {"mode": "exact", "reason": "Cast defines one result per input: RNE and the spec's tables"}


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


def witness(form: Form, v: Variant, ctx: Context) -> Iterator[Case]:
    """The committed witnesses of the variant's groups (generator/witness/catalogue/<family>.json): inputs on
    which a fault model of generator/reference/cast_faults/ and the reference differ. One case per group;
    the kill matrix writes which faults each data set kills. -NaN witnesses are left to negative_nan, the
    one case that compares the sign of NaN."""
    for opset in sorted({v.opset, max(24, v.opset)}):
        entry = ctx.witnesses.get(group_key({"params": v.params, "opset": opset}))
        if entry is None or opset > ctx.max_opset:
            continue
        items = value_witnesses(entry)
        if not items:
            continue
        x = decode(items, v.src)
        if not v.outcome(x, opset).defined:
            raise ValueError(f"{form.base(v)}: the witness catalogue holds inputs the spec leaves undefined")
        what = "witness" if opset == v.opset else f"witness_opset{opset}"
        yield from cases_of(form, v, what, x, ctx.seed_of(form, v), ["witness"], opset=opset)
