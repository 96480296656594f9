"""A model's QuantizeLinear -> DequantizeLinear pairs as graph cases of the chains family: the QDQ pairs a QDQ model
is made of, which graph optimizers remove, fold into their neighbours or fuse (families/chains.py: a pair is the
quantize-dequantize rounding, never the identity). Each pair's nodes as written, its constants as the model holds
them, x's data from the QuantizeLinear adapter (generator/from_model/quantize_linear.py), the expected values the
two references in turn. Each node is still a node case of its own as well.

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
