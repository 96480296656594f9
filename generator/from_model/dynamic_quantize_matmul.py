"""A model's com.microsoft DynamicQuantizeMatMul node as a case (generator/from_model/plan.py), as onnxruntime's
optimizer writes it from quantize_dynamic's DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul (-> Add): A the
activation (generated), B, b_scale, b_zero_point and bias the model's constants, kept bit for bit.

A takes the family's kinds (generator/families/dynamic_quantize_matmul/config.py: draw_a), so that the bound's
allowance for A's quantization is 0 where it can be: A on the quantization grid of both signs, all positive, all
negative, 3/4 of a step off the grid (truncation), all equal at the range's top (int16 pairs with the model's
weights), of a wide range, and random (uniform in --calibration's range of A, else [-4, 4]). Inputs another node
computes other than A get plausible values (MatMulIntegerToFloat's adapter's).
"""

from __future__ import annotations

import numpy as np

from generator.families.dynamic_quantize_matmul.config import FAMILY, REASON, Config, draw_a
from generator.families.matmul_integer_to_float import core
from generator.from_model.matmul_integer_to_float import form, present, slots
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.reference import dynamic_quantize_matmul as ref
from generator.sampling import Stream, case_seed

OPS = ((ref.DOMAIN, "DynamicQuantizeMatMul"),)
KINDS = ("grid", "positive", "negative", "truncated", "pairs", "wide")
DEFAULT_RANGE = (-4.0, 4.0)


def plan(site: Site, ctx: Context) -> Plan | str:
    """The node's case, or why not (an input of unknown type or shape, a node the family's validator refuses)."""
    ops = present(site, len(ref.INPUTS))
    if any(ops[j] is None for j in range(3)):
        return "the model's node is invalid: A, B and b_scale are required"
    for j, op in enumerate(ops):
        if op is not None and (op.type is None or op.shape is None):
            return f"{ref.INPUTS[j]}'s element type or shape is unknown"
    try:
        ref.validate({}, site.opset or 1, [op and op.type for op in ops], [op and len(op.shape) for op in ops])
        ref.validate_shapes([None if op is None else tuple(op.shape) for op in ops], {}, site.opset or 1)
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    a, b = tuple(ops[0].shape), tuple(ops[1].shape)
    shape = [None if op is None else tuple(op.shape) for op in ops]
    cfg = Config("model", a, b, ops[1].type.name, form(shape[3], b[-1], "column"),
                 form(shape[2], b[-1], "column", "tensor"), ops[4] is not None)
    generated = [j for j, op in enumerate(ops) if op is not None and not op.constant]
    consts = {j: op.value() for j, op in enumerate(ops) if op is not None and op.constant}
    compare = core.dot_spec(FAMILY.name, slots(ops, generated, ref.INPUTS), "float", cfg.k + 2 + int(cfg.bias), REASON)
    given = ctx.range(ops[0].name)
    lo, hi = given if given is not None else DEFAULT_RANGE
    note = "calibration" if given is not None else f"[{lo:g}, {hi:g}]: the adapter's default for an activation"

    def outcome(args):
        return ref.dynamic_quantize_matmul(list(args)), (ref.READING_A_QUANT,)

    def made(s: Stream, kind: str) -> list:
        vals = [consts.get(j) for j in range(len(ref.INPUTS))]
        for j in range(1, len(ref.INPUTS)):
            if ops[j] is not None and vals[j] is None:
                vals[j] = core.random_input(s, ops[j].type.name, shape[j])
                if j == 2:  # a computed scale: positive
                    vals[j] = np.abs(vals[j]) + np.float32(2.0 ** -6)
        if vals[0] is None:
            vals[0] = (lo + (hi - lo) * s.random(a)).astype(np.float32) if kind == "random" else \
                draw_a(cfg, s, kind)
        return [vals[j] for j in generated]

    params = dict(cfg.params, what="model")
    if not generated:
        return Plan(FAMILY.name, params, ref.CLAUSE, compare, [], [[]], None, None, outcome)
    edge = Stream(case_seed(0, f"{FAMILY.name} edges {site.name}"))
    return Plan(FAMILY.name, params, ref.CLAUSE, compare, generated, [made(edge, k) for k in KINDS],
                lambda s: made(s, s.choice(KINDS + ("random",))), lambda s: made(s, "random"), outcome,
                range_note=note)
