"""ONNX CastLike, from onnx.defs CastLike-15..25: "casts the elements of a given input tensor (the first input)
to the same data type as the elements of the second input tensor. See documentation of the Cast operator for
further details." Its attributes are Cast's: saturate (CastLike-19 on), round_mode (CastLike-24 on), each
"Please refer to operator Cast description".

So CastLike(input, target_type) at opset N is Cast(input, to = the element type of target_type) at opset N:
target_type's shape and values play no part. The result and the undefined elements are Cast's
(generator.reference.cast, which cites the texts).
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import cast


def cast_like(x: np.ndarray, target_type: np.ndarray, src: DType | str, to: DType | str, *, saturate: bool = True,
              round_mode: str = "up", opset: int = 25) -> Outcome:
    """CastLike of x (elements of `src`) to the element type `to` of target_type, whose shape and values are not
    read: Outcome (y,), y shaped like x, the undefined elements by reason, as Cast's. [CastLike: "to the same
    data type as the elements of the second input tensor"]"""
    del target_type  # only its element type, `to`, matters
    return cast.cast_outcome(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)


def cast_like_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
    """CastLike as a graph node, for the opconform backend: the target's element type from input_types[1]."""
    return list(cast_like(inputs[0], inputs[1], input_types[0], dtypes.get(input_types[1]), opset=opset,
                          **cast.node_attributes(attrs, opset)).outputs)


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "CastLike"): cast_like_node}
