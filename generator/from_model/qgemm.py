"""A model's com.microsoft QGemm node as a case (generator/from_model/plan.py), as onnxruntime's quantize_static
QOperator format writes it for a Gemm: a uint8 / int8 activation A against the model's weights B (transB as
written), the model's scales and zero points (b per tensor or per column), its int32 bias C, a quantized or float
output.

A's data is made for this configuration (the weights, C and scales are the model's): A at a_zero_point everywhere
(acc 0: y from C alone), A at the bottom, then the top of its type (the greatest sums: saturation, int16 pairs for a
uint8 A against int8 weights), then rows mixing the two ends; the random data sets are uniform over A's range
(--calibration's range of A's tensor, else the whole type). An input another node computes gets plausible values of
its type: zero points at the middle of the type, B uniform, C zeros, scales powers of two (y_scale fitted so that
the greatest |acc + C| requantizes to twice y's span).
"""

from __future__ import annotations

from math import ceil, floor

import numpy as np

from generator.families.qgemm.config import CLAUSE, DOT_REASON, COMPARE_QUANTIZED, ABS_BOUND
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.reference import qgemm as ref
from generator.sampling import Stream

OPS = ((ref.DOMAIN, "QGemm"),)
SCALES = {1: 2.0**-7, 4: 2.0**-8, 7: 2.0**-10}


def _attrs(site: Site) -> dict:
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in site.node.attribute}


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one QGemm node, or why the node is not covered."""
    ops = [op if op.origin != "absent" else None for op in site.inputs] + [None] * (9 - len(site.inputs))
    for j, op in enumerate(ops):
        if op is not None and (op.type is None or op.shape is None):
            return f"{ref.INPUTS[j]}'s element type or shape is unknown"
    attrs = _attrs(site)
    try:
        ref.validate(attrs, site.opset or 1, [op and op.type for op in ops[:len(site.inputs)]],
                     [op and len(op.shape) for op in ops])
        m, k, n = ref.check_shapes([op and tuple(op.shape) for op in ops], attrs)
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    generated = [j for j, op in enumerate(ops) if op is not None and not op.constant]
    fed = [j for j, op in enumerate(ops) if op is not None and (j in generated or op.default)]
    held = [j for j, op in enumerate(ops) if op is not None and j not in fed]
    quantized = ops[7] is not None
    alpha, ta, tb = ref.attributes(attrs)
    params = {"M": m, "K": k, "N": n, "transA": int(ta), "transB": int(tb), "alpha": alpha,
              "a_type": ops[0].type.name, "b_type": ops[3].type.name,
              "y_type": ops[8].type.name if quantized else "float",
              "b_scale_shape": list(ops[4].shape), "b_zero_point_shape": list(ops[5].shape) if ops[5] else [],
              "c_shape": None if ops[6] is None else list(ops[6].shape), "attrs": attrs, "scales": "model"}
    compare = COMPARE_QUANTIZED if quantized else {
        "mode": "dot", "operands": "qgemm", "node": ref.compare_node(attrs), "slots": [ref.INPUTS[j] for j in fed + held],
        "accumulation": "float", "abs_bound": ABS_BOUND, "reason": DOT_REASON}
    readings = tuple(ref.readings(quantized, any(int(np.prod(p or [1])) > 1 for p in
                                                 (params["b_scale_shape"], params["b_zero_point_shape"]))))
    consts = {j: op.value() for j, op in enumerate(ops) if op is not None and op.constant}

    def outcome(args):
        return ref.qgemm(list(args), attrs), readings

    def values(stream: Stream | None) -> list:
        vals = [consts.get(j) for j in range(9)]
        for j in generated:
            if j == 0:
                continue
            t, shape = ops[j].type, tuple(ops[j].shape)
            if j in (1, 4, 7):
                v = np.full(shape, SCALES[j]) if stream is None else stream.octaves(-9, -3, shape)
                vals[j] = np.asarray(v, np.float32)
            elif j == 6:
                vals[j] = np.zeros(shape, np.int32)
            elif j == 3:
                s = stream or Stream(0)
                vals[j] = s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
            else:
                vals[j] = np.full(shape, (t.int_min + t.int_max + 1) // 2, t.np_dtype)
        return vals

    at = ops[0].type
    lo, hi, note = at.int_min, at.int_max, f"the whole {at.name} range"
    given = ctx.range(ops[0].name)
    if given is not None and ceil(given[0]) <= floor(given[1]):
        lo = max(at.int_min, min(at.int_max, ceil(given[0])))
        hi, note = min(at.int_max, max(lo, floor(given[1]))), "calibration"

    def data_set(a: np.ndarray | None, stream: Stream | None) -> list:
        vals = values(stream)
        if 0 in generated:
            vals[0] = np.asarray(a).astype(at.np_dtype)
        if 7 in generated and 0 in generated:  # y_scale fitted to the sums: twice y's span
            probe = ref.operands(vals, attrs)
            top = max(1, int(np.abs(ref.accumulate(probe) + probe.c).max(initial=0)))
            y = ops[8].type
            vals[7] = np.asarray(np.float32(abs(alpha or 1.0) * float(probe.a_scale) *
                                            float(np.max(probe.b_scale)) * top / (2 * (y.int_max - y.int_min))))
        return [vals[j] for j in generated]

    shape = tuple(ops[0].shape)
    if 0 not in generated:
        return Plan("qgemm", params, CLAUSE, compare, generated, [data_set(None, None)], None, None, outcome)
    zp = int(np.asarray(consts.get(2, (at.int_min + at.int_max + 1) // 2)).reshape(-1)[0])
    edges = [np.full(shape, zp), np.full(shape, at.int_min), np.full(shape, at.int_max)]
    mixed = np.full(shape, at.int_min)
    mixed.reshape(-1)[::2] = at.int_max
    edges.append(mixed)

    def random(stream: Stream) -> list:
        return data_set(stream.integers(lo, hi, shape), stream)

    def draw(stream: Stream) -> list:
        a = stream.integers(lo, hi, shape)
        ends = stream.integers(0, 1, shape) == 1
        a = np.where(stream.integers(0, 3, shape) == 0, np.where(ends, at.int_max, at.int_min), a)
        return data_set(a, stream)

    return Plan("qgemm", params, CLAUSE, compare, generated, [data_set(e, None) for e in edges], draw, random,
                outcome, range_note=note)
