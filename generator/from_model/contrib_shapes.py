"""Types and shapes of com.microsoft operators' outputs, which onnx's shape inference does not know: without them
every node after a MatMulNBits, a QGemm or a QLinearSoftmax has an input of unknown type and shape (and no case).

Each rule reads the operator's inputs as onnxruntime's docs/ContribOperators.md states them and gives its first
output's element type and dims (dims copied as written: symbolic names kept). model_source runs onnx's inference,
adds what these rules give for the nodes whose inputs it now knows, and infers again, until nothing is added.
A rule that cannot tell (an input still unknown, broadcasting it cannot decide) gives nothing.
"""

from __future__ import annotations

from typing import Callable

import onnx
from onnx import helper

MS = "com.microsoft"
Dims = list  # of int (dim_value), str (dim_param) or None (unknown)


def _dims(tp: onnx.TypeProto | None) -> Dims | None:
    if tp is None or not tp.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tp.tensor_type.shape.dim]


def _elem(tp: onnx.TypeProto | None) -> int:
    return tp.tensor_type.elem_type if tp is not None else 0


def _attr(node: onnx.NodeProto, name: str, default):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def _broadcast(a: Dims, b: Dims) -> Dims | None:
    """numpy broadcasting of two shapes; None where a pair of dims cannot be decided (two different symbols)."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def _same(j: int):
    """Output 0 is input j's type and shape (the elementwise and softmax operators)."""
    return lambda node, get: (_elem(get(0)), _dims(get(0))) if get(j) is not None else None


def _matmul_nbits(node, get):
    a = _dims(get(0))
    return None if a is None else (_elem(get(0)), a[:-1] + [int(_attr(node, "N", 0))])


def _to_float_matmul(node, get):
    """DynamicQuantizeMatMul / MatMulIntegerToFloat: A [..., K] x B [K, N] -> float [..., N] (the scale's type)."""
    a, b = _dims(get(0)), _dims(get(1))
    if a is None or b is None or len(b) < 1:
        return None
    return _elem(get(2)) or onnx.TensorProto.FLOAT, a[:-1] + b[-1:]


def _qgemm(node, get):
    """QGemm: A [M, K] (transA), B [K, N] (transB); the output quantized to y_zero_point's type, else float."""
    a, b = _dims(get(0)), _dims(get(3))
    if a is None or b is None or len(a) != 2 or len(b) != 2:
        return None
    m = a[1] if _attr(node, "transA", 0) else a[0]
    n = b[0] if _attr(node, "transB", 0) else b[1]
    zp = get(8) if len(node.input) > 8 and node.input[8] else None
    return (_elem(zp) if zp is not None else onnx.TensorProto.FLOAT), [m, n]


def _qlinear_binary(node, get):
    """QLinearAdd / QLinearMul: A (input 0) and B (input 3) broadcast; C in C_zero_point's type (A's if omitted)."""
    a, b = _dims(get(0)), _dims(get(3))
    shape = None if a is None or b is None else _broadcast(a, b)
    if shape is None:
        return None
    zp = get(7) if len(node.input) > 7 and node.input[7] else None
    return (_elem(zp) if zp is not None else _elem(get(0))), shape


def _global_pool(node, get):
    x = _dims(get(0))
    if x is None or len(x) < 3:
        return None
    if _attr(node, "channels_last", 0):
        return _elem(get(0)), [x[0], *[1] * (len(x) - 2), x[-1]]
    return _elem(get(0)), [x[0], x[1], *[1] * (len(x) - 2)]


def _concat(node, get):
    """QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) per input, concatenated along axis."""
    xs = [_dims(get(j)) for j in range(2, len(node.input), 3)]
    if not xs or any(x is None for x in xs) or len({len(x) for x in xs}) != 1:
        return None
    axis = int(_attr(node, "axis", 0)) % len(xs[0])
    sizes = [x[axis] for x in xs]
    out = list(xs[0])
    out[axis] = sum(sizes) if all(isinstance(s, int) for s in sizes) else None
    return _elem(get(1)), out


RULES: dict[str, Callable] = {
    "MatMulNBits": _matmul_nbits,
    "DynamicQuantizeMatMul": _to_float_matmul,
    "MatMulIntegerToFloat": _to_float_matmul,
    "QGemm": _qgemm,
    "QLinearAdd": _qlinear_binary,
    "QLinearMul": _qlinear_binary,
    "QLinearSigmoid": _same(0),
    "QLinearLeakyRelu": _same(0),
    "QLinearSoftmax": _same(0),
    "QLinearGlobalAveragePool": _global_pool,
    "QLinearConcat": _concat,
}


def added(graph: onnx.GraphProto, types: dict[str, onnx.TypeProto]) -> list[onnx.ValueInfoProto]:
    """value_info for the first output of each com.microsoft node a rule can now type, not typed yet."""
    out = []
    for node in graph.node:
        rule = RULES.get(node.op_type) if node.domain == MS else None
        if rule is None or not node.output or not node.output[0] or node.output[0] in types:
            continue

        def get(j: int, node=node):
            return types.get(node.input[j]) if j < len(node.input) and node.input[j] else None
        got = rule(node, get)
        if got is None or not got[0] or got[1] is None:
            continue
        elem, dims = got
        out.append(helper.make_tensor_value_info(node.output[0], elem, dims))
    return out
