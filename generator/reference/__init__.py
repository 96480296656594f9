"""The project's reference implementations, one module per operator.

REFERENCES maps (domain, op_type) to the operator's graph-node entry, which the opconform backend
(runners/backends/opconform.py) calls node by node:

    fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]

inputs: one array per node input (None for an omitted optional input); attrs: attribute values by ONNX
name (strings as str, tensors as numpy arrays); opset: the model's import of the node's domain;
input_types: the element type of each input. Outputs come back in their ONNX element types.
The domain of the default ONNX operator set is "" ("ai.onnx" is looked up as "").
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from generator.dtypes import DType
from generator.reference.cast import cast_node
from generator.reference.convert_promote_types import convert_promote_types_node
from generator.reference.dynamic_quantize_linear import dynamic_quantize_linear_node
from generator.reference.layout_kernels import ONNX_NODES as LAYOUT_NODES
from generator.reference.qlinear_conv import qlinear_conv_node

NodeFunction = Callable[[list[np.ndarray], dict, int, list[DType]], list[np.ndarray]]

REFERENCES: dict[tuple[str, str], NodeFunction] = {
    ("", "Cast"): cast_node,
    ("org.openvinotoolkit", "ConvertPromoteTypes"): convert_promote_types_node,
    **{("", op): fn for op, fn in LAYOUT_NODES.items()},  # the layout family's graphs
    ("", "DynamicQuantizeLinear"): dynamic_quantize_linear_node,
    ("", "QLinearConv"): qlinear_conv_node,
}


def lookup(domain: str, op_type: str) -> NodeFunction | None:
    """The node function of an operator, or None; "ai.onnx" and "" are the same domain."""
    return REFERENCES.get(("" if domain == "ai.onnx" else domain, op_type))
