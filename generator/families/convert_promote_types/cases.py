"""ConvertPromoteTypes' cases: the model (the node and its function body of two Casts), the negative case of a
pair safe mode refuses, and the node and probe cases of the values of a pair that has a common type."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import onnx
from onnx import helper

from generator import sampling
from generator.case import Case, node_model
from generator.dtypes import DType
from generator.family import split, split_elements
from generator.families.convert_promote_types.values import Values, edge_values
from generator.families.convert_promote_types.variant import (EXACT, FAMILY, FUNCTION_IR, MIN_OPSET, NATIVE, Variant,
                                                              example_variants)
from generator.reference import convert_promote_types as ref


def onnx_opset(*types: DType) -> int:
    """The ai.onnx opset of the function body: the first Cast accepting every type involved."""
    return max([MIN_OPSET] + [t.cast_since for t in types])


def _dim_shape(rank: int, n: int) -> tuple:
    return (n,) if rank == 1 else (1, n)


def model(v: Variant, common: DType, shapes: tuple[tuple, tuple]) -> onnx.ModelProto:
    """The ConvertPromoteTypes node and its model-local function: two Casts to `common`."""
    opset = onnx_opset(v.t0, v.t1, common)
    sat = {"saturate": 0} if common.is_float8 else {}  # the reference converts without saturation
    body = [helper.make_node("Cast", ["input_0"], ["output_0"], to=common.onnx, **sat),
            helper.make_node("Cast", ["input_1"], ["output_1"], to=common.onnx, **sat)]
    function = helper.make_function(FAMILY.domain, FAMILY.op, ["input_0", "input_1"], ["output_0", "output_1"],
                                    body, [helper.make_opsetid("", opset)],
                                    attribute_protos=[  # the spec's defaults, for a node that leaves one out
                                        helper.make_attribute("promote_unsafe", 0),
                                        helper.make_attribute("pytorch_scalar_promotion", 0),
                                        helper.make_attribute("u64_integer_promotion_target", ref.DEFAULT_TARGET)])
    m = node_model(FAMILY.op, [("input_0", v.t0, shapes[0]), ("input_1", v.t1, shapes[1])],
                   [("output_0", common, shapes[0]), ("output_1", common, shapes[1])], v.attrs, opset,
                   domain=FAMILY.domain, extra_opsets={FAMILY.domain: ref.VERSION}, functions=[function])
    m.ir_version = max(m.ir_version, FUNCTION_IR)
    return m


def meta_args(v: Variant, d: ref.Decision, seed: int, flags: list[str], opset: int, **fixed) -> dict:
    """What the case.json metadata of v's cases holds besides compare (Family.meta's arguments); `fixed` goes
    into it too."""
    return dict(opset=opset, clause=d.clause, flags=flags, seed=seed, params=v.params, domain_version=ref.VERSION,
                **fixed)


def negative_case(v: Variant, d: ref.Decision, seed: int, flags: list[str], name: str | None = None,
                  shapes: tuple | None = None) -> Case:
    """Safe mode must refuse the pair (phase prepare) [CPT: Note under integer types]. The function body casts
    to the type unsafe mode gives; the shapes are v's (a spec example's), else three elements a dimension."""
    unsafe = v.unsafe_common
    shapes = shapes or v.shapes or tuple(() if r == 0 else _dim_shape(r, 3) for r in v.ranks)
    return FAMILY.negative(name or v.name, model(v, unsafe, shapes), [], phase="prepare", error=d.error,
                           common_type=None, unsafe_common_type=unsafe.name, native=NATIVE,
                           **meta_args(v, d, seed, flags, onnx_opset(v.t0, v.t1, unsafe)))


def cases_of(v: Variant, d: ref.Decision, name: str, datasets: list[list[np.ndarray]], seed: int,
             flags: list[str], **extra) -> Iterator[Case]:
    """The node case <name> of the data sets the reference defines, the probe <name>_probe of the others
    (generator.family.split); case.json names the common type; `extra` goes into it too."""
    common = d.common
    outcomes = [ref.convert_promote_types(*ins, v.t0, v.t1, **v.options) for ins in datasets]
    meta = FAMILY.meta(compare=dict(EXACT), **meta_args(v, d, seed, flags, onnx_opset(v.t0, v.t1, common),
                                                      common_type=common.name,
                                                      common_type_openvino=ref.element_name(common), **extra))
    return split(name, datasets, outcomes, lambda ins: model(v, common, tuple(np.shape(x) for x in ins)), meta)


def value_cases(v: Variant, d: ref.Decision, name: str, candidates: list[np.ndarray], seed: int,
                flags: list[str]) -> Iterator[Case]:
    """The node case (defined values) and the probe case (undefined ones) of a pair that has a common type.

    candidates[k]: the values of input k: one tensor if it is dimensioned, one data set per value if a scalar.
    A probe data set holds the undefined values of each input beside the defined ones of the other."""
    good, bad = [], []
    for k, (t, r, x) in enumerate(zip((v.t0, v.t1), v.ranks, candidates)):
        ok, _, undefined, _ = split_elements(x, ref.convert(x, t, d.common))
        if r:
            shape = v.shapes[k] if v.shapes and not undefined.size else _dim_shape(r, ok.size)
            good.append([ok.reshape(shape)] if ok.size else [])
            bad.append([undefined.reshape(_dim_shape(r, undefined.size))] if undefined.size else [])
        else:
            good.append([np.asarray(e).reshape(()) for e in ok])
            bad.append([np.asarray(e).reshape(()) for e in undefined])
    probes = _datasets([b or g for b, g in zip(bad, good)]) if any(bad) else []
    yield from cases_of(v, d, name, _datasets(good) + probes, seed, flags)


def _datasets(per_input: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Data sets from each input's arrays: a dimensioned input has one, a scalar one per value; the j-th
    data set takes the j-th of each (cycling the shorter)."""
    if not per_input or not all(per_input):
        return []
    n = max(len(a) for a in per_input)
    return [[a[j % len(a)] for a in per_input] for j in range(n)]


def variant_cases(v: Variant, values: Values, seed: int, flags: list[str]) -> Iterator[Case]:
    """A negative case, or the cases of the values: the catalogue (<name>), seeded random values of the wider
    types (<name>_random, both inputs dimensioned), each with its probe."""
    d = v.decision
    s = sampling.case_seed(seed, v.name)
    if d.common is None:
        yield negative_case(v, d, s, flags)
        return
    if v.shapes:  # a spec example: its shapes, filled with the defined values of the catalogue, in turn
        fill = []
        for t, shape in zip((v.t0, v.t1), v.shapes):
            x = values.dim(t)
            fill.append(np.resize(split_elements(x, ref.convert(x, t, d.common))[0], shape))
        yield from value_cases(v, d, v.name, [f.reshape(-1) for f in fill], s, flags)
        return
    both_dim = 0 not in v.ranks
    # beside a scalar, a dimensioned input holds the edge catalogue only (the dim_dim cases hold the rest)
    cands = [(values.dim(t) if both_dim else edge_values(t)) if r else values.scalar(t)
             for t, r in zip((v.t0, v.t1), v.ranks)]
    yield from value_cases(v, d, v.name, cands, s, flags)
    rnd = [values.random(t) for t in (v.t0, v.t1)]
    if both_dim and any(x.size for x in rnd):
        cands = [x if x.size else values.dim(t) for x, t in zip(rnd, (v.t0, v.t1))]
        yield from value_cases(v, d, f"{v.name}_random", cands, s, flags + ["random"])


def example_case(v: Variant, result: str | None, values: Values, seed: int) -> Iterator[Case]:
    """The cases of one example of the spec text (v), whose common type the text gives (result; None: safe mode
    refuses the pair)."""
    d = v.decision
    want = None if result is None else ref.element_type(result)
    if d.common != want:  # the reference must agree with every example of the spec text
        raise AssertionError(f"{v.name}: the reference gives {d.common}, the spec says {result}")
    yield from variant_cases(v, values, seed, ["example"])


def example_cases(values: Values, seed: int) -> Iterator[Case]:
    for v, result in example_variants():
        yield from example_case(v, result, values, seed)
