"""QuantizeLinear / DequantizeLinear on torch's quantized tensors, where the node maps onto them one to one.

torch.quantize_per_tensor / quantize_per_channel quantize a float32 tensor with a (double) scale and an integer
zero point to quint8 / qint8 / qint32, clamping to the type's range; `dequantize()` turns such a tensor back
into float32. A quantized tensor with given integer contents is made by torch._make_per_tensor_quantized_tensor /
_make_per_channel_quantized_tensor (what torch's own quantization code uses). So the node maps when:
x (QuantizeLinear) / y (DequantizeLinear) and the scale are float32, the integer side is uint8, int8 or int32,
the scale is a scalar (per tensor) or 1-D (per axis; `axis` as the node says), there is no block_size and no
`precision` other than float32. Which of the two a scale's shape means, and which shapes the node's version rules
out (refused, as a frontend would), is the schema's reading in generator/reference (check_shapes). Everything else (float16 / bfloat16 scales, 4- and 2-bit, 16-bit, float8 and
float4 outputs, blocked quantization) is unsupported: torch has no such quantized type or op.
torch computes as its kernels do (measured on 2.13 CPU: zero_point + x * (1 / scale), then rounded half to even,
then clamped); the suite judges that against the spec, the adapter does not correct it.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from generator.reference import dequantize_linear as dql
from generator.reference import quantize_linear as ql
from generator.reference.quant_axes import QuantShapeError
from runners.backends.base import Unsupported
from runners.backends.torch_jax_nodes import Node

QTYPES = {"uint8": torch.quint8, "int8": torch.qint8, "int32": torch.qint32}
FLOAT32 = 1  # TensorProto.FLOAT: the only `precision` torch computes in
DEPRECATED = r".*quantized tensor creation functions.*deprecated"  # torch 2.13's warning on every quantized op


def prepare(node: Node, device: str):
    """A function of the fed inputs for this QuantizeLinear / DequantizeLinear node; Unsupported where torch has
    no op matching it one to one (the module docstring lists when it has)."""
    quantize = node.op == "QuantizeLinear"
    real, integer = (node.inputs[0], node.outputs[0]) if quantize else (node.outputs[0], node.inputs[0])
    why = []
    if real.name != "float" or node.inputs[1].name != "float":
        why.append(f"torch quantizes float32 only (x / y {real.name}, scale {node.inputs[1].name})")
    if integer.name not in QTYPES:
        why.append(f"torch has no quantized {integer.name} (quint8, qint8, qint32 only)")
    if node.attrs.get("block_size", 0):
        why.append("torch has no blocked quantization")
    if node.attrs.get("precision", FLOAT32) != FLOAT32:
        why.append(f"torch divides in float32 only (precision={node.attrs['precision']})")
    if why:
        raise Unsupported("; ".join(why))
    axis = node.attrs.get("axis", 1)
    qtype = QTYPES[integer.name]

    def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
        x, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
        zero = np.asarray(inputs[2]) if len(inputs) > 2 else None
        per_axis = granularity(node, x, scale, zero) == "per-axis"
        if zero is None:
            zero = np.zeros(scale.shape, dtype=integer.np_dtype)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=DEPRECATED)
            if quantize:
                y = _quantize(torch.from_numpy(x.copy()).to(device), scale, zero, axis, x.ndim, per_axis, qtype)
                return [y.int_repr().cpu().numpy()]
            q = _quantized(torch.from_numpy(x.copy()).to(device), scale, zero, axis, x.ndim, per_axis)
            return [q.dequantize().cpu().numpy()]
    return run


def granularity(node: Node, x: np.ndarray, scale: np.ndarray, zero: np.ndarray | None) -> str:
    """"per-tensor" or "per-axis", as the node's schema reads these shapes (generator/reference's check_shapes);
    Unsupported for shapes the schema rules out: torch would quantize them, and a refusal would be the
    adapter's, not torch's."""
    axis, opset = node.attrs.get("axis", 1), node.opset
    zshape = None if zero is None else zero.shape
    try:
        if node.op == "QuantizeLinear":
            return ql.check_shapes(opset, x.shape, scale.shape, zshape, axis, 0)
        return dql.check_shapes(x.shape, scale.shape, zshape, axis, 0, opset)
    except QuantShapeError as exc:
        raise Unsupported(f"{node.op}-{opset} rules these shapes out ({exc}); torch reads no model, so the refusal "
                          "would be the adapter's") from None


def _scales(scale: np.ndarray, zero: np.ndarray, device: str):
    """(float64 scales, int64 zero points) tensors: float32 -> float64 is exact."""
    return (torch.from_numpy(scale.astype(np.float64).reshape(-1)).to(device),
            torch.from_numpy(zero.astype(np.int64).reshape(-1)).to(device))


def _quantize(x: torch.Tensor, scale, zero, axis: int, rank: int, per_axis: bool, qtype) -> torch.Tensor:
    if not per_axis:
        return torch.quantize_per_tensor(x, float(scale.reshape(-1)[0]), int(zero.reshape(-1)[0]), qtype)
    scales, zeros = _scales(scale, zero, x.device)
    return torch.quantize_per_channel(x, scales, zeros, axis % rank, qtype)


def _quantized(x: torch.Tensor, scale, zero, axis: int, rank: int, per_axis: bool) -> torch.Tensor:
    if not per_axis:
        return torch._make_per_tensor_quantized_tensor(x, float(scale.reshape(-1)[0]), int(zero.reshape(-1)[0]))
    scales, zeros = _scales(scale, zero, x.device)
    return torch._make_per_channel_quantized_tensor(x, scales, zeros, axis % rank)
