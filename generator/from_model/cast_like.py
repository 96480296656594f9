"""A model's CastLike node as a case (generator/from_model/plan.py): CastLike-N is Cast-N with `to` the element type
of target_type (generator/reference/cast_like.py), so the plan is Cast's (generator/from_model/cast.py, node_plan) for
the (input, target_type) pair, in the CastLike family's params, clause and comparison, its witnesses from the
CastLike catalogue (generator/witness/catalogue/cast_like.json).

target_type: a constant of the model (an initializer or a Constant node; torch's `type_as` exports one) stays an
initializer, bit for bit; one another node computes (an activation whose type the cast follows) is generated: one
tensor of its shape, of any bit patterns from a seed of the node's name, the same in every data set (its values
play no part: a backend that reads them fails). A round_mode down / nearest result that differs from up's names
the family's reading (READING_ROUND_MODE: onnx's function body drops round_mode).
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.families.cast_like import MIN_OPSET, READING_ROUND_MODE, TARGET_TEXTS, first_opset
from generator.faults import same_elements
from generator.from_model.cast import accepts, attributes, node_plan, variant
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.reference import cast as ref
from generator.sampling import Stream, case_seed

OPS = (("", "CastLike"),)


def plan(site: Site, ctx: Context) -> Plan | str:
    if site.opset is None or site.opset < MIN_OPSET:
        return f"the model's node is invalid: CastLike came at opset {MIN_OPSET}, the model imports {site.opset}"
    if len(site.inputs) < 2 or any(op.origin == "absent" for op in site.inputs[:2]):
        return "the model's node is invalid: CastLike takes two inputs (input, target_type)"
    x, t = site.inputs[0], site.inputs[1]
    for what, op in (("input", x), ("target_type", t)):
        if op.type is None:
            return f"{what}'s element type is unknown"
    why = accepts("CastLike", site.opset, x.type, t.type)
    if why:
        return why
    v = variant(x.type, t.type, attributes(site), site.opset)
    if isinstance(v, str):
        return v
    computed = {}
    if not t.constant:
        if t.shape is None:
            return "target_type's shape is unknown"
        computed[1] = target_values(t.type, t.shape, site.name)

    def reading(x_values, outcome) -> tuple[str, ...]:
        """READING_ROUND_MODE where a round_mode down / nearest result differs from up's (the function body's)."""
        if v.round_mode in (None, "up") or v.opset < 24 or not outcome.defined:
            return ()
        up = ref.cast_outcome(x_values, v.src, v.to, saturate=v.saturate is not False, round_mode="up",
                              opset=v.opset).outputs[0]
        return (READING_ROUND_MODE,) if not same_elements(outcome.outputs[0], up, v.to).all() else ()

    return node_plan("cast_like", site, ctx, v, family_opset=first_opset(x.type, t.type) or site.opset,
                     computed=computed, reading=reading)


def target_values(t: DType, shape: tuple[int, ...], name: str) -> np.ndarray:
    """A tensor of t's shape holding arbitrary values of t (seeded by the node's name): numbers from random bits,
    texts from the family's TARGET_TEXTS."""
    s = Stream(case_seed(0, f"target_type {name}"))
    n = int(np.prod(shape, dtype=np.int64))
    if t.kind == "string":
        return np.array([s.choice(TARGET_TEXTS) for _ in range(n)], dtype=object).reshape(shape)
    if t.kind == "bool":
        return s.booleans(size=n).reshape(shape)
    return t.from_bits(s.bits(t.bits, n)).reshape(shape)

