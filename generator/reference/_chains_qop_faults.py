"""Fault models of the chains family's QDQ patterns that fuse into com.microsoft QOperators (generator/families/
_chains_qops.py): what a fused QLinearAdd / QLinearMul / QLinearSigmoid / QLinearAveragePool / QLinearConcat / QGemm /
MatMulIntegerToFloat kernel plausibly does otherwise, as a rewrite of the chain (Fault.fn: model -> (rewritten model,
node functions swapped in), run node by node on the references: chains_faults.run). Listed in chains_faults.FAULTS.
"""

from __future__ import annotations

import copy

import numpy as np
import onnx
from onnx import helper, numpy_helper

from generator.faults import Fault

QOP_PATTERNS = ("dq_add_q", "dq_mul_q", "dq_sigmoid_q", "dq_averagepool_q", "dq_concat_q", "dq_gemm_q")
TARGETS = ("Add", "Mul", "Sigmoid", "AveragePool", "Concat", "Gemm")


def _rebuilt(model: onnx.ModelProto, nodes: list[onnx.NodeProto], inits=()) -> onnx.ModelProto:
    out = copy.deepcopy(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    out.graph.initializer.extend(inits)
    return out


def _target(model: onnx.ModelProto, ops=TARGETS) -> onnx.NodeProto | None:
    """The chain's float operator: the first node of `ops` whose inputs are all DequantizeLinear outputs."""
    dq_out = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    return next((n for n in model.graph.node if n.op_type in ops and all(i in dq_out for i in n.input if i)), None)


def _producers(model: onnx.ModelProto, node: onnx.NodeProto) -> list[onnx.NodeProto]:
    by_out = {n.output[0]: n for n in model.graph.node}
    return [by_out[i] for i in node.input if i]


def first_zero_point_ignored(model: onnx.ModelProto):
    """The fused kernel reads its first quantized input without its zero point (the DequantizeLinear of the op's
    input 0 loses its zero point: y = x * scale)."""
    op = _target(model)
    if op is None:
        return model, {}
    dq = _producers(model, op)[0]
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if n.output[0] == dq.output[0]:
            del n.input[2:]
        nodes.append(n)
    return _rebuilt(model, nodes), {}


def _concat_params(model: onnx.ModelProto, first: bool):
    op = _target(model, ("Concat",))
    if op is None:
        return model, {}
    dqs = _producers(model, op)
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if first and n.op_type == "DequantizeLinear" and n.output[0] in op.input:
            n.input[1:] = dqs[0].input[1:]
        nodes.append(n)
    if first:
        return _rebuilt(model, nodes), {}
    # requantization skipped: the quantized inputs' bytes concatenated (each read as in the output's scale and zero
    # point), the Concat's output the Q's
    q = next(n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == op.output[0])
    raw = helper.make_node("Concat", [d.input[0] for d in dqs], [q.output[0]], axis=next(
        a.i for a in op.attribute if a.name == "axis"))
    return _rebuilt(model, [raw]), {}


def concat_first_input_params(model: onnx.ModelProto):
    """The fused QLinearConcat dequantizes every input with the first input's scale and zero point."""
    return _concat_params(model, True)


def concat_requant_skipped(model: onnx.ModelProto):
    """The fused QLinearConcat copies each input's bytes, as if every input were in the output's scale and zero
    point (the fast path of equal parameters taken without checking them)."""
    return _concat_params(model, False)


def _attrs(node: onnx.NodeProto) -> dict:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def averagepool_count_include_pad_flipped(model: onnx.ModelProto):
    """The fused QLinearAveragePool takes count_include_pad the other way round."""
    op = _target(model, ("AveragePool",))
    if op is None:
        return model, {}
    nodes = []
    for n in model.graph.node:
        if n.output[0] == op.output[0]:
            attrs = _attrs(n)
            attrs["count_include_pad"] = 1 - int(attrs.get("count_include_pad", 0))
            n = helper.make_node("AveragePool", list(n.input), list(n.output), **attrs)
        nodes.append(copy.deepcopy(n))
    return _rebuilt(model, nodes), {}


def averagepool_pads_quantized_zero(model: onnx.ModelProto):
    """The pool runs on the quantized tensor (the DequantizeLinear moved after it), its pads the integer 0, not the
    zero point: with count_include_pad each pad counts as (0 - x_zero_point) * x_scale (modelled as the float
    tensor padded with that value, then pooled without pads)."""
    op = _target(model, ("AveragePool",))
    if op is None:
        return model, {}
    attrs = _attrs(op)
    pads = list(attrs.pop("pads", []))
    if not any(pads) or not int(attrs.get("count_include_pad", 0)):
        return model, {}  # pads not counted: their value never shows
    dq = _producers(model, op)[0]
    zero, pad_value, padded, pads_name = (dq.output[0] + k for k in ("_q0", "_pad_value", "_padded", "_pads"))
    full = [0, 0, *pads[:len(pads) // 2], 0, 0, *pads[len(pads) // 2:]]
    inits = [numpy_helper.from_array(np.asarray(full, np.int64), pads_name),
             numpy_helper.from_array(np.zeros((), _x_dtype(model, dq.input[0])), zero)]
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if n.output[0] == op.output[0]:
            nodes.append(helper.make_node("DequantizeLinear", [zero, *dq.input[1:]], [pad_value]))
            nodes.append(helper.make_node("Pad", [op.input[0], pads_name, pad_value], [padded], mode="constant"))
            n = helper.make_node("AveragePool", [padded], list(n.output), **attrs)
        nodes.append(n)
    return _rebuilt(model, nodes, inits), {}


def _x_dtype(model: onnx.ModelProto, name: str):
    """The numpy type of a graph input or initializer."""
    from onnx import helper as h
    for i in model.graph.initializer:
        if i.name == name:
            return h.tensor_dtype_to_np_dtype(i.data_type)
    v = next(v for v in model.graph.input if v.name == name)
    return h.tensor_dtype_to_np_dtype(v.type.tensor_type.elem_type)


def gemm_bias_times_alpha(model: onnx.ModelProto):
    """The fusion moves C's int32 into QGemm unchanged, whose text reads it in scale alpha / beta * a_scale *
    b_scale: the bias is multiplied by alpha (Y = alpha * (A' * B' + C))."""
    op = _target(model, ("Gemm",))
    if op is None or len(op.input) < 3 or not op.input[2]:
        return model, {}
    alpha = float(_attrs(op).get("alpha", 1.0))
    scaled, alpha_name = op.input[2] + "_times_alpha", op.output[0] + "_alpha"
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if n.output[0] == op.output[0]:
            nodes.append(helper.make_node("Mul", [op.input[2], alpha_name], [scaled]))
            n.input[2] = scaled
        nodes.append(n)
    return _rebuilt(model, nodes, [numpy_helper.from_array(np.asarray(alpha, np.float32), alpha_name)]), {}


def gemm_bias_scale_assumed(model: onnx.ModelProto):
    """The fusion moves C's int32 into QGemm whatever its DequantizeLinear's scale: the bias is read in a_scale *
    b_scale (C's own scale and zero point dropped)."""
    op = _target(model, ("Gemm",))
    if op is None or len(op.input) < 3 or not op.input[2]:
        return model, {}
    dq_a, dq_b, dq_c = _producers(model, op)
    scale = op.output[0] + "_ab_scale"
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if n.output[0] == dq_c.output[0]:
            nodes.append(helper.make_node("Mul", [dq_a.input[1], dq_b.input[1]], [scale]))
            n = helper.make_node("DequantizeLinear", [dq_c.input[0], scale], list(n.output))
        nodes.append(n)
    return _rebuilt(model, nodes), {}


def dynamic_matmul_bias_dropped(model: onnx.ModelProto):
    """The fused MatMulIntegerToFloat / DynamicQuantizeMatMul leaves its optional bias out (the Add's output is the
    Mul's)."""
    muls = {n.output[0] for n in model.graph.node if n.op_type == "Mul"}
    add = next((n for n in model.graph.node if n.op_type == "Add" and n.input[0] in muls), None)
    if add is None:
        return model, {}
    nodes = [copy.deepcopy(n) if n is not add else helper.make_node("Identity", [add.input[0]], [add.output[0]])
             for n in model.graph.node]
    return _rebuilt(model, nodes), {}


def no_ties(params: dict) -> str | None:
    """A QOperator chain none of whose elements judged exactly (lo == hi) has its quotient within 2**-12 of a
    half-integer between two unsaturated neighbours (params "ties", found by families/_chains_qops.exact_ties): the
    tie rules (half away from zero; the zero point added first; adding 0.4999999 to q + zero point < 256 in float32
    and truncating, which moves it by less than 2**-15 + 1e-7) round every such element as half-to-even does."""
    if params.get("pattern") in QOP_PATTERNS and params.get("ties") is False:
        return ("no element judged exactly lies within 2**-12 of a tie between unsaturated neighbours "
                "(_chains_qops.exact_ties): every tie rule rounds the judged elements as half-to-even does")
    return None


def exact_a_scale(params: dict) -> str | None:
    """DynamicQuantizeLinear's a of range 255 * 2**-6 on 2**-7 steps (dql_matmul_bias): float32(1 / 255) is
    (1 + 127 * 2**-31) / 255, so range * it is 2**-6 * (1 + 127 * 2**-31), under half an ulp above 2**-6: it rounds
    to 2**-6; float32(x * 255) is exact for x on 2**-7 steps below 4 and its quotient by the range is x * 64 exactly:
    the fault's scale and quantized a are the reference's."""
    if params.get("a_range") == "255 * 2**-6" and params.get("a_step") == "2**-7":
        return ("a's range is 255 * 2**-6 and a on 2**-7 steps: range * float32(1/255) rounds to 2**-6 and "
                "float32(x * 255) / range = x * 64 exactly")
    return None


def _pattern(*names):
    return lambda params: params.get("pattern") in names


def _pads_counted(params: dict) -> str | None:
    attrs = params.get("attrs") or {}
    if not any(attrs.get("pads", [])):
        return "no pads: every window's count is the same either way"
    return None


def _pads_included(params: dict) -> str | None:
    attrs = params.get("attrs") or {}
    if not any(attrs.get("pads", [])):
        return "no pads: nothing is padded"
    if not attrs.get("count_include_pad", 0):
        return "count_include_pad=0: a pad's value is never counted, whatever it is"
    return None


FAULTS: tuple[Fault, ...] = (
    Fault("chains.qop_zero_point_ignored", "the fused QOperator kernel reads its first quantized input without its "
          "zero point", first_zero_point_ignored, applies=_pattern(*QOP_PATTERNS),
          equivalent=lambda p: "the first input's zero point is 0" if (p.get("zero_points") or [1])[0] == 0 else None,
          seen_in="not seen; modelled as a fused kernel written for symmetric (zero point 0) quantization"),
    Fault("chains.concat_first_input_params", "the fused QLinearConcat dequantizes every input with the first input's "
          "scale and zero point", concat_first_input_params, applies=_pattern("dq_concat_q"),
          seen_in="not seen; modelled as a kernel that reads one (scale, zero point) for all its inputs"),
    Fault("chains.concat_requant_skipped", "the fused QLinearConcat copies every input's bytes (as if each were in the "
          "output's scale and zero point)", concat_requant_skipped, applies=_pattern("dq_concat_q"),
          seen_in="not seen; modelled as the equal-parameters fast path taken without checking them"),
    Fault("chains.averagepool_count_include_pad_flipped", "the fused QLinearAveragePool takes count_include_pad the "
          "other way round", averagepool_count_include_pad_flipped, applies=_pattern("dq_averagepool_q"),
          equivalent=_pads_counted,
          seen_in="not seen; modelled as an attribute lost or inverted in the rewrite to QLinearAveragePool"),
    Fault("chains.averagepool_pads_quantized_zero", "the pool runs on the quantized tensor, its pads the integer 0 "
          "instead of the zero point (with count_include_pad each pad counts as -x_zero_point * x_scale)",
          averagepool_pads_quantized_zero, applies=_pattern("dq_averagepool_q"), equivalent=_pads_included,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: test_chain_dq_averagepool_q_pad_include_initializers, its "
                  "low-precision pass moves the DequantizeLinear after the AveragePool)"),
    Fault("chains.gemm_bias_times_alpha", "the Gemm chain fused into QGemm with C moved across unchanged: QGemm "
          "reads C in alpha / beta * a_scale * b_scale, so the bias is multiplied by alpha", gemm_bias_times_alpha,
          applies=_pattern("dq_gemm_q"),
          equivalent=lambda p: "alpha = 1: C's scale is a_scale * b_scale either way" if p.get("alpha", 1) == 1
          else None,
          seen_in="not seen (onnxruntime 1.32 does not fuse a Gemm of alpha != 1, measured here); modelled on "
                  "QGemm's text and the selector's move of C (qdq_actions.cc GemmReplaceWithQuant)"),
    Fault("chains.gemm_bias_scale_assumed", "the Gemm chain fused into QGemm with C's int32 moved across whatever its "
          "scale: the bias is read in a_scale * b_scale", gemm_bias_scale_assumed, applies=_pattern("dq_gemm_q"),
          equivalent=lambda p: "C's scale is a_scale * b_scale" if p.get("c_factor", 1) == 1 else None,
          seen_in="onnxruntime 1.32.0 CPU, graph_optimization_level extended and above (measured here: "
                  "test_chain_dq_gemm_q_bias_scale_fed / _initializers / _constant; its selector moves C's input 0 "
                  "alone, qdq_actions.cc GemmReplaceWithQuant, and GemmNodeGroupSelector checks C's type, not its "
                  "scale)"),
    Fault("chains.dynamic_matmul_bias_dropped", "the fused MatMulIntegerToFloat / DynamicQuantizeMatMul leaves its "
          "optional bias out", dynamic_matmul_bias_dropped, applies=_pattern("dql_matmul_bias", "matmul_integer_bias"),
          seen_in="not seen; modelled as a fused node built without the Add's bias input"),
)
