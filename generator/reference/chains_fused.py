"""A DequantizeLinear (x, w, bias) -> Conv / MatMul -> QuantizeLinear chain rewritten into the one integer node an
optimizer fuses it into (onnxruntime's QDQ selectors: QLinearConv / QLinearMatMul), so that a fault model of that
node's kernel (generator/reference/qlinear_conv_faults.py, qlinear_matmul_faults.py) runs in the chain's place: the
chains family's fault models of fused kernels (chains_faults.py)."""

from __future__ import annotations

import copy

import numpy as np
import onnx
from onnx import helper

from generator.case_reader import read_tensor


def _by_output(model: onnx.ModelProto) -> dict[str, onnx.NodeProto]:
    return {o: n for n in model.graph.node for o in n.output}


def _init(model: onnx.ModelProto, name: str) -> np.ndarray | None:
    for t in model.graph.initializer:
        if t.name == name:
            return read_tensor(t.SerializeToString(), name)
    return None


def _bias(model: onnx.ModelProto, dqb: onnx.NodeProto, dqx: onnx.NodeProto, dqw: onnx.NodeProto) -> str | None:
    """The int32 bias a fused node takes: the DequantizeLinear's x, where its scale is x_scale * w_scale and its zero
    point 0 (what a quantizer writes and a fuser requires); else None (no fusion)."""
    scale = _init(model, dqb.input[1])
    xs, ws = _init(model, dqx.input[1]), _init(model, dqw.input[1])
    zp = _init(model, dqb.input[2]) if len(dqb.input) > 2 and dqb.input[2] else np.zeros(1)
    if scale is None or xs is None or ws is None or zp is None or np.any(zp != 0):
        return None
    want = (np.float32(np.asarray(xs).ravel()[0]) * np.asarray(ws, np.float32)).astype(np.float32)
    return dqb.input[0] if np.array_equal(np.broadcast_to(want, np.shape(scale)), scale) else None


def fused(model: onnx.ModelProto) -> tuple[onnx.ModelProto, str] | None:
    """(the model with its chain as one QLinearConv / QLinearMatMul node, that op), or None where the model has no
    such chain or a fuser would not fuse it (a bias of another scale, per-channel x or y)."""
    by_out = _by_output(model)
    for q in model.graph.node:
        op = by_out.get(q.input[0]) if q.op_type == "QuantizeLinear" else None
        if op is None or op.op_type not in ("Conv", "MatMul"):
            continue
        dqs = [by_out.get(i) for i in op.input if i]
        if len(dqs) < 2 or any(d is None or d.op_type != "DequantizeLinear" for d in dqs):
            return None
        dqx, dqw = dqs[0], dqs[1]

        def three(n):
            return [n.input[0], n.input[1], n.input[2] if len(n.input) > 2 else ""]
        y = [q.input[1], q.input[2] if len(q.input) > 2 else ""]
        if op.op_type == "MatMul":
            node = helper.make_node("QLinearMatMul", three(dqx) + three(dqw) + y, [q.output[0]])
        else:
            bias = []
            if len(dqs) > 2:
                b = _bias(model, dqs[2], dqx, dqw)
                if b is None:
                    return None
                bias = [b]
            node = helper.make_node("QLinearConv", three(dqx) + three(dqw) + y + bias, [q.output[0]])
            node.attribute.extend(copy.deepcopy(a) for a in op.attribute)
        out = copy.deepcopy(model)
        del out.graph.node[:]
        out.graph.node.append(node)
        return out, node.op_type
    return None


def fused_with(fault_fns: dict[str, object]):
    """A chains fault's rewrite: the chain fused, its node run with the fault function of that op (fault_fns: op ->
    node function); a model it does not fuse runs as written."""
    def rewrite(model: onnx.ModelProto):
        done = fused(model)
        if done is None:
            return model, {}
        rewritten, op = done
        return rewritten, {("", op): fault_fns[op]}
    return rewrite
