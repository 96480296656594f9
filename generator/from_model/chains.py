"""A model's QuantizeLinear -> DequantizeLinear pairs as graph cases of the chains family: the QDQ pairs a QDQ model
is made of, which graph optimizers remove, fold into their neighbours or fuse (families/chains.py: a pair is the
quantize-dequantize rounding, never the identity). Each pair's nodes as written, its constants as the model holds
them, x's data from the QuantizeLinear adapter (generator/from_model/quantize_linear.py), the expected values the
two references in turn. Each node is still a node case of its own as well.

Also DequantizeLinear (x, w, bias) -> Conv / MatMul -> QuantizeLinear, what onnxruntime fuses into QLinearConv /
QLinearMatMul: judged by what any float32 order of the sums gives (compare mode "range", reference/dq_op_q.py); and
DequantizeLinear -> Add / Mul / Sigmoid / LeakyRelu / Softmax / AveragePool / GlobalAveragePool / Concat ->
QuantizeLinear, what it fuses into the com.microsoft QLinear* operators (qop_chain: the range of the QLinear
operator's float function, reference/qlinear_ops.py), where the op's first input is the chain's one activation.

A pair is taken when the QuantizeLinear's output feeds the DequantizeLinear's x and both take float32 scales (the
float32 product (q - zp) * scale then has one rounding: the chains family's exact comparison holds)."""

from __future__ import annotations

import numpy as np

from generator.families.chains import EXACT, QDQ_CLAUSE
from generator.from_model import quantize_linear as ql
from generator.from_model.model_source import Site, Source
from generator.from_model.plan import Context, Plan
from generator.interpret import decode_attribute
from generator.outcome import Outcome
from generator.reference import dequantize_linear as dq_ref

def pairs(source: Source) -> list[tuple[Site, Site]]:
    """(QuantizeLinear, DequantizeLinear) sites where the first's y is the second's x."""
    producer = {op.name: site for site in source.sites for op in site.outputs if op.name}
    found = []
    for site in source.sites:
        if site.key != ("", "DequantizeLinear") or not site.inputs:
            continue
        q = producer.get(site.inputs[0].name)
        if q is not None and q.key == ("", "QuantizeLinear"):
            found.append((q, site))
    return found


def plan(q: Site, dq: Site, ctx: Context) -> Plan | str:
    """The pair's graph case, or why the pair is not taken (its nodes are cases of their own either way)."""
    first = ql.plan(q, ctx)
    if isinstance(first, str):
        return first
    if not first.generated:
        return "QuantizeLinear's x is a constant: the pair is folded, nothing to feed"
    for s in (q, dq):
        if s.inputs[1].type is None or s.inputs[1].type.name != "float":
            return "the pair as a chain takes float32 scales (its nodes are cases of their own)"
        if any(not op.constant for op in s.inputs[1:] if op.origin != "absent"):
            return "a scale or zero point of the pair is computed by another node"
    if dq.outputs[0].type is not None and dq.outputs[0].type.name != "float":
        return "the pair as a chain takes a float32 output"
    dq_attrs = {a.name: decode_attribute(a) for a in dq.node.attribute}
    d_scale = dq.inputs[1].value()
    d_zp = dq.inputs[2].value() if len(dq.inputs) > 2 and dq.inputs[2].origin != "absent" else None
    d_kw = dict(axis=int(dq_attrs.get("axis", 1)), block_size=int(dq_attrs.get("block_size", 0)),
                output_dtype=dq_attrs.get("output_dtype"), opset=dq.opset, x_type=q.outputs[0].type or None,
                scale_type="float")

    def outcome(args):
        qo, readings = first.outcome(args)
        d, _ = dq_ref.dequantize_linear_explained(qo.outputs[0], d_scale, d_zp, **d_kw)
        masks = {r: np.asarray(m) for r, m in qo.undefined.items()}
        for r, m in d.undefined.items():
            masks[r] = masks[r] | np.asarray(m) if r in masks else np.asarray(m)
        return Outcome(d.outputs, masks), readings

    zps = np.asarray(q.inputs[2].value() if len(q.inputs) > 2 and q.inputs[2].origin != "absent" else 0).ravel()
    odd = [int(z) for z in zps if int(z) % 2]
    params = {"rewrite": "qdq_pair_removal", "pattern": "qdq", "inputs": "initializers",
              "zero_point_type": first.params.get("zero_point") or "uint8",
              "zero_point": odd[0] if odd else int(zps[0]), "granularity": first.params.get("granularity")}
    return Plan("chains", params, QDQ_CLAUSE, EXACT, first.generated, first.edges, first.draw,
                first.random, outcome, spec_file="onnx.defs:QuantizeLinear-13", flags=("optimizer",),
                range_note=first.range_note, chain=[dq], label="chain_qdq", op="QuantizeLinear", kind="graph")


# ---------------------------------------------------------------------------------------
# DequantizeLinear (x, w, bias) -> Conv / MatMul -> QuantizeLinear
# ---------------------------------------------------------------------------------------
OP_PATTERNS = {"Conv": "dq_conv_q", "MatMul": "dq_matmul_q"}
OP_CLAUSE = ("DequantizeLinear: y = (x - x_zero_point) * x_scale; Conv / MatMul: sums of products in float32; "
             "QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point), ties to even. A fused kernel must give "
             "what the three steps give")
RANGE_REASON = ("one result per element unless the float32 sums' order can move the quotient across a rounding "
                "boundary; there, either neighbour (generator/reference/dq_op_q.py)")


def op_chains(source: Source) -> list[list[Site]]:
    """[DQ x, DQ w, (DQ bias), Conv | MatMul, Q] or [DQ of each input, Add | Mul | Sigmoid | ..., Q] in graph order:
    a Q whose x is such an op's output, whose inputs are DequantizeLinear outputs."""
    producer = {op.name: site for site in source.sites for op in site.outputs if op.name}
    found = []
    for q in source.sites:
        if q.key != ("", "QuantizeLinear") or not q.inputs:
            continue
        op = producer.get(q.inputs[0].name)
        if op is None or op.key not in (("", "Conv"), ("", "MatMul")) + tuple(("", k) for k in QOP_CHAIN_OPS):
            continue
        dqs = [producer.get(i.name) for i in op.inputs if i.name]
        if len(dqs) < (1 if op.op in QOP_CHAIN_OPS else 2) or any(
                d is None or d.key != ("", "DequantizeLinear") for d in dqs):
            continue
        found.append(sorted([*dqs, op, q], key=lambda s: s.index))
    return found


def _const(site: Site, j: int):
    return site.inputs[j].value() if len(site.inputs) > j and site.inputs[j].origin != "absent" else None


def plan_op_chain(chain: list[Site], ctx: Context) -> Plan | str:
    """The chain's graph case: x's quantized data generated, everything else the model's."""
    from generator.reference import dq_op_q, qlinear_conv as qc
    *dqs, op, q = sorted(chain, key=lambda s: s.index)
    if op.op in QOP_CHAIN_OPS:
        return plan_qop_chain(chain, ctx)
    by_output = {d.outputs[0].name: d for d in dqs}
    dqx, dqw = by_output.get(op.inputs[0].name), by_output.get(op.inputs[1].name)
    dqb = by_output.get(op.inputs[2].name) if len(op.inputs) > 2 and op.inputs[2].name else None
    if dqx is None or dqw is None or dqx is dqw:
        return "the op's inputs are not each a DequantizeLinear"
    x = dqx.inputs[0]
    if x.constant or x.type is None or x.shape is None:
        return "the chain's x is a constant or of unknown type / shape"
    for s in (dqw, dqb):
        if s is not None and not all(i.constant for i in s.inputs if i.origin != "absent"):
            return "a weight or bias DequantizeLinear has a computed input"
    for s in (dqx, q):
        if not all(i.constant for i in s.inputs[1:] if i.origin != "absent"):
            return "a scale or zero point of the chain is computed by another node"
        if np.asarray(s.inputs[1].value()).size != 1:
            return "the chain's x and y quantization are per tensor only"
    out = q.outputs[0].type or (q.inputs[2].type if len(q.inputs) > 2 and q.inputs[2].origin != "absent" else None)
    if out is None or out.kind not in ("int", "uint") or out.bits > 16:
        return "the chain quantizes to an integer type of 16 bits or fewer"
    if any(s.inputs[1].type is None or s.inputs[1].type.name != "float" for s in (dqx, dqw, q)):
        return "the chain takes float32 scales"
    attrs = {a.name: decode_attribute(a) for a in op.node.attribute}
    w = dqw.inputs[0]
    chain_attrs = {"op": op.op, "out": out.name, "bias": dqb is not None,
                   "x_axis": int({a.name: decode_attribute(a) for a in dqx.node.attribute}.get("axis", 1)),
                   "w_axis": int({a.name: decode_attribute(a) for a in dqw.node.attribute}.get("axis", 1))}
    if op.op == "Conv":
        kernel = tuple(w.shape[2:])
        n = len(kernel)
        strides = [int(v) for v in attrs.get("strides", [1] * n)]
        dilations = [int(v) for v in attrs.get("dilations", [1] * n)]
        begin, end, _ = qc.resolve_padding(tuple(x.shape[2:]), kernel, strides, dilations,
                                           str(attrs.get("auto_pad", "NOTSET")), attrs.get("pads"))
        chain_attrs.update(strides=strides, dilations=dilations, pads=[*begin, *end], group=int(attrs.get("group", 1)))
    tensors = {"x": x.name}
    for name, site in (("x", dqx), ("w", dqw), ("b", dqb)):
        if site is None:
            continue
        names = [name, f"{name}_scale", f"{name}_zero_point"]
        for j, key in enumerate(names):
            if len(site.inputs) > j and site.inputs[j].origin != "absent":
                tensors[key] = site.inputs[j].name
    tensors["y_scale"] = q.inputs[1].name
    if len(q.inputs) > 2 and q.inputs[2].origin != "absent":
        tensors["y_zero_point"] = q.inputs[2].name
    consts = {k: chain_site_value(chain, t) for k, t in tensors.items() if k != "x"}
    values = lambda xv: [xv if k == "x" else consts.get(k) for k in dq_op_q.NAMES]  # noqa: E731

    one_element = tuple(k for k in ("x_scale", "w_scale", "b_scale")
                        if k in consts and np.ndim(consts[k]) == 1 and np.size(consts[k]) == 1)

    def outcome(args):
        expected, lo, hi = dq_op_q.bounds(values(args[0]), chain_attrs)
        return Outcome((expected,)), (((dq_op_q.READING,) if np.any(lo != hi) else ()) +
                                      ((dq_op_q.ONE_ELEMENT,) if one_element else ()))

    zx = int(np.asarray(consts.get("x_zero_point", 0)).ravel()[0])
    edges, draw, random, given = _x_data(x, zx, ctx)
    xt = x.type

    y_zp = consts.get("y_zero_point")
    zp = int(np.asarray(y_zp).ravel()[0]) if y_zp is not None else 0
    compare = {"mode": "range", "operands": "dq_op_q", "chain": chain_attrs, "tensors": tensors,
               "reason": RANGE_REASON,
               "tolerant": {"widen": 1, "reason": "fixed-point requantization is common practice: +-1"}}
    params = {"rewrite": "qdq_" + op.op.lower() + "_fusion", "pattern": OP_PATTERNS[op.op], "inputs": "initializers",
              "zero_point_type": out.name, "zero_point": zp, "x_type": xt.name, "w_type": w.type.name if w.type else None}
    rest = [s for s in sorted(chain, key=lambda s: s.index) if s is not dqx]
    return Plan("chains", params, OP_CLAUSE, compare, [0], edges, draw, random, outcome,
                spec_file=f"onnx.defs:{op.op}-{13 if op.op == 'MatMul' else 11}", flags=("optimizer",),
                range_note="calibration" if given else "x's whole type range", chain=rest,
                label=f"chain_{OP_PATTERNS[op.op]}", op=op.op, kind="graph")


def chain_site_value(chain: list[Site], tensor: str):
    for s in chain:
        for i in s.inputs:
            if i.name == tensor and i.constant:
                return i.value()
    return None


def _x_data(x, zx: int, ctx: Context):
    """(edges, draw, random, calibrated) of a chain's quantized activation x: all at its zero point, at each end of
    its type, the two ends alternating; draws near the zero point or anywhere; random in the calibration range."""
    xt = x.type
    lo_t, hi_t = xt.int_min, xt.int_max
    edges = [[np.full(x.shape, v, xt.np_dtype)] for v in (zx, lo_t, hi_t)]
    edges.append([np.resize(np.array([lo_t, hi_t], xt.np_dtype), x.shape)])
    given = ctx.range(x.name)
    r_lo, r_hi = (int(max(lo_t, np.floor(given[0]))), int(min(hi_t, np.ceil(given[1])))) if given else (lo_t, hi_t)

    def random(stream):
        return [stream.integers(r_lo, r_hi, size=int(np.prod(x.shape))).reshape(x.shape).astype(xt.np_dtype)]

    def draw(stream):
        near = stream.integers(max(lo_t, zx - 8), min(hi_t, zx + 8), size=int(np.prod(x.shape)))
        wide = stream.integers(lo_t, hi_t, size=near.size)
        pick = stream.booleans(size=near.size)
        return [np.where(pick, near, wide).reshape(x.shape).astype(xt.np_dtype)]
    return edges, draw, random, given


# ---------------------------------------------------------------------------------------
# DequantizeLinear -> Add / Mul / Sigmoid / ... -> QuantizeLinear: the com.microsoft QLinear* operators' chains
# ---------------------------------------------------------------------------------------
QOP_CHAIN_OPS = {"Add": "QLinearAdd", "Mul": "QLinearMul", "Sigmoid": "QLinearSigmoid",
                 "LeakyRelu": "QLinearLeakyRelu", "Softmax": "QLinearSoftmax", "AveragePool": "QLinearAveragePool",
                 "GlobalAveragePool": "QLinearGlobalAveragePool", "Concat": "QLinearConcat"}
QOP_CLAUSE = ("DequantizeLinear: y = (x - x_zero_point) * x_scale; the float operator in float32; QuantizeLinear: y = "
              "saturate(round(x / y_scale) + y_zero_point), ties to even. A fused QLinear* kernel must give what the "
              "three steps give")


def plan_qop_chain(chain: list[Site], ctx: Context) -> Plan | str:
    """The DequantizeLinear -> op -> QuantizeLinear chain's graph case, its op's first input's quantized data
    generated; every other DequantizeLinear's inputs, every scale and zero point, the model's constants (per
    tensor, float32 scales, one 8-bit type throughout)."""
    from generator.families._chains_qops import SPECS, _roles
    from generator.reference import chains as chains_ref
    from generator.reference import qlinear_ops
    *dqs, op, q = sorted(chain, key=lambda s: s.index)
    by_output = {d.outputs[0].name: d for d in dqs}
    ordered = [by_output.get(i.name) for i in op.inputs]
    if any(d is None for d in ordered) or len(set(map(id, ordered))) != len(ordered):
        return "the op's inputs are not each a DequantizeLinear of its own"
    x = ordered[0].inputs[0]
    if x.constant or x.type is None or x.shape is None:
        return "the chain's first x is a constant or of unknown type / shape"
    for s in ordered[1:]:
        if not all(i.constant for i in s.inputs if i.origin != "absent"):
            return "a second activation: the chain takes one (the op's first input), the others the model's constants"
    for s in ordered + [q]:
        if not all(i.constant for i in s.inputs[1:] if i.origin != "absent"):
            return "a scale or zero point of the chain is computed by another node"
        if np.asarray(s.inputs[1].value()).size != 1 or s.inputs[1].type is None or s.inputs[1].type.name != "float":
            return "the chain's quantization is per tensor, with float32 scales"
    out = q.outputs[0].type or (q.inputs[2].type if len(q.inputs) > 2 and q.inputs[2].origin != "absent" else None)
    types = {s.inputs[0].type.name if s.inputs[0].type else None for s in ordered} | {out.name if out else None}
    if len(types) != 1 or types - {"uint8", "int8"}:
        return "the QLinear* operators take one 8-bit type throughout (uint8 or int8)"
    from generator.reference import lookup
    if lookup("", op.op) is None:
        return f"the project has no reference of {op.op} to run the chain node by node"
    attrs = {a.name: decode_attribute(a) for a in op.node.attribute}
    if op.op == "AveragePool" and (attrs.get("ceil_mode") or any(d != 1 for d in attrs.get("dilations", []))):
        return "AveragePool with ceil_mode / dilations: the project's AveragePool reference implements neither"
    if op.op == "Softmax":
        attrs["opset"] = op.opset
    qop = QOP_CHAIN_OPS[op.op]
    roles = _roles(op.op, len(ordered))
    slots = qlinear_ops.slots_of(qop, 2 + 3 * len(ordered))
    site_of = dict(zip(roles, ordered))
    tensors = {}
    for slot in slots:
        site, j = (q, {"scale": 1, "zp": 2}[slot.kind]) if slot.role == qlinear_ops.OUT else (
            site_of[slot.role], {"q": 0, "scale": 1, "zp": 2}[slot.kind])
        if len(site.inputs) > j and site.inputs[j].origin != "absent":
            tensors[slot.name] = site.inputs[j].name
    consts = {k: chain_site_value(chain, t) for k, t in tensors.items() if t != x.name}
    first = next(s.name for s in slots if s.kind == "q")

    def inputs_of(xv):
        return [xv if s.name == first else consts.get(s.name) for s in slots]

    def outcome(args):
        o, readings = chains_ref.qop_chain(qop, inputs_of(args[0]), attrs)
        return o, tuple(readings)

    def zero_point(slot_name):
        return int(np.asarray(consts[slot_name]).ravel()[0]) if slot_name in consts else 0
    zx = zero_point(next(s.name for s in slots if s.role == roles[0] and s.kind == "zp"))
    edges, draw, random, given = _x_data(x, zx, ctx)
    y_zp = consts.get(next(s.name for s in slots if s.role == qlinear_ops.OUT and s.kind == "zp"))
    zp = int(np.asarray(y_zp).ravel()[0]) if y_zp is not None else 0
    compare = {"mode": "range", "operands": "dq_op_q", "chain": {"op": qop, **attrs, "n_inputs": len(slots)},
               "tensors": tensors, "reason": RANGE_REASON,
               "tolerant": {"widen": 1, "reason": "fixed-point requantization is common practice: +-1"}}
    params = {"rewrite": f"qdq_{op.op.lower()}_fusion", "pattern": f"dq_{op.op.lower()}_q", "inputs": "initializers",
              "qop": qop, "zero_point_type": out.name, "zero_point": zp, "attrs": attrs,
              "zero_points": [zero_point(s.name) for s in slots if s.kind == "zp" and s.role != qlinear_ops.OUT]}
    rest = [s for s in sorted(chain, key=lambda s: s.index) if s is not ordered[0]]
    return Plan("chains", params, QOP_CLAUSE, compare, [0], edges, draw, random, outcome,
                spec_file=SPECS.get(op.op, f"onnx.defs:{op.op}-{op.opset}"), flags=("optimizer",),
                range_note="calibration" if given else "x's whole type range", chain=rest,
                label=f"chain_dq_{op.op.lower()}_q", op=op.op, kind="graph")
