"""What OpenVINO says when it does not implement something, release by release (2023.3 LTS to 2026.4), as
opposed to a refusal of a model or a bug (docs/backends.md).

Every pattern names the releases seen saying it (on the committed suite, `pytest cases --backend openvino`).
Not "OpConversionFailure" itself: the frontend wraps every failed node in it, with the node's own message, and a
node its translator refuses by a failed check of a valid model is a bug (an error).
"""

from __future__ import annotations

import re

import onnx
from onnx import TensorProto
from openvino import _pyopenvino

from generator import dtypes
from runners.backends.base import UnsupportedTable

UNSUPPORTED = UnsupportedTable(
    types=tuple(filter(None, [getattr(_pyopenvino, "NotImplementedFailure", None)])),  # a frontend's NOT_IMPLEMENTED
    text=(
        r"No conversion rule found for operations",  # the ONNX frontend has no translator for an op (2026.4)
        r"does not support the following ONNX operations",
        r"Unsupported operation of type",  # the CPU plugin has no kernel for a node (2026.4)
        r"Not Implemented",
        r"is not supported",
        r"Unsupported data type [A-Z0-9]+ expected",  # an element type the ONNX frontend does not take (2026.4)
        r"unsupported (src|dst)_prc",  # the CPU plugin has no conversion for this element type (2026.4)
    ))

# 2025.3 and older: the ONNX frontend names no type when its own onnx has no name for it (FLOAT4E2M1, UINT2...),
# "Unsupported data type  expected: BOOL, BFLOAT16, ..., UNDEFINED". An invalid type (Cast to=999) reads the same,
# so the text alone is not enough: see `refusal`.
UNNAMED_TYPE = re.compile(r"Unsupported data type\s+expected: ([A-Z0-9_]+(?:, [A-Z0-9_]+)*)")
TYPE_ATTRIBUTES = ("to", "output_dtype", "dtype")  # attributes that name an element type


def _model_types(model: onnx.ModelProto) -> set[int]:
    """Every element type the model names: its values, initializers and type attributes (functions too)."""
    g = model.graph
    found = {v.type.tensor_type.elem_type for v in (*g.input, *g.output, *g.value_info)}
    found |= {t.data_type for t in g.initializer}
    for node in [*g.node, *(n for f in model.functions for n in f.node)]:
        found |= {a.i for a in node.attribute if a.name in TYPE_ATTRIBUTES and a.type == onnx.AttributeProto.INT}
    return found - {0}


def refusal(exc: BaseException, model: onnx.ModelProto | None = None) -> str | None:
    """None where `exc` is an error; else why it says OpenVINO does not implement something: "" where its own
    words say it (the table), the types left out for an unnamed-type refusal. The unnamed-type refusal is unsupported only when the model names a
    valid ONNX element type the message's list leaves out; an invalid type stays an error."""
    if UNSUPPORTED.matches(exc):
        return ""
    said = UNNAMED_TYPE.search(str(exc))
    if said is None or model is None:
        return None
    taken = set(said.group(1).split(", "))
    known = {d.onnx for d in dtypes.all_dtypes()}
    left_out = sorted(TensorProto.DataType.Name(t) for t in _model_types(model) & known
                      if TensorProto.DataType.Name(t) not in taken)
    if not left_out:
        return None
    return f"the ONNX frontend does not take {', '.join(left_out)} (it takes {', '.join(sorted(taken))})"
