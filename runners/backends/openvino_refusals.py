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
        # 2026.4: QuantizeLinear to FLOAT4E2M1 through FakeConvert, which takes f8e4m3 / f8e5m2 only
        r"Bad format for f8 conversion type: \w+",
        # 2024.6 (u8 / i8 / u16 / i16), 2025.3 (u4 / i4 too): QuantizeLinear to another type (float8, int4...)
        r"input data for QuantizeLinear operator must be one of the supported types",
        # 2025.0: the CPU plugin's Eltwise kernels take no float8 (Cast float8e4m3fn -> bool goes through Abs)
        r"Eltwise node with name `[^`]*` doesn't support \w+ precision",
        # 2024.6, 2025.0: blocked DequantizeLinear-21 only along axis 0, with scales of rank 2 at most
        r"Axis != 0 isn't supported",
        r"DequantizeLinear cannot operate with more than 2D scales",
        # 2023.3, 2025.0: DequantizeLinear-19's float16 / bfloat16 scales (its frontend takes float32 scales only)
        r"(?m)Incorrect data type of the Dequantization scale input: b?f16$",
    ))

# A translator's own words that it does not implement an attribute value, or an input fed at run time where it
# takes only a constant (2026.4, ONNX frontend's com.microsoft.MatMulNBits: B, zero_points and g_idx must be
# initializers; bits 2, 4, 8 only), measured with hand-built models (docs/matmul_backends.md). Its failed checks of
# a model the schema forbids ("Wrong block size, should be >=16 and be a power of 2") are not here: they stay errors.
TRANSLATOR_UNSUPPORTED = UnsupportedTable(text=(
    r"MatMulNBits limitation: accepting only a constant as a",  # "... a B input", "... a zero_points", "... a group_idx"
    r"Unsupported bits value: \d+",
))

# Of those, the refusals that say a weight fed at run time must be a constant (--inputs auto runs the item again
# with its weights as initializers, runners/input_modes.py): the MatMulNBits translator's own words (2026.4), and
# the CPU plugin's convolutions, which take no weights computed at run time ("Not Implemented: Doesn't support
# dynamic weights shape", QLinearConv with w fed, 2026.4).
CONSTANT_ONLY = UnsupportedTable(text=(
    r"accepting only a constant as a",
    r"Doesn't support dynamic weights shape",
))

# Refusals of an element type that do not name it, so the text alone is not enough (an invalid type, Cast
# to=999, reads the same): unsupported only where the model names a valid ONNX type the frontend does not take
# (see `refusal`).
# 2024.6, 2025.0, 2025.3: the ONNX frontend's own onnx has no name for the type (FLOAT4E2M1, FLOAT8E8M0, UINT2...):
# "Unsupported data type  expected: BOOL, BFLOAT16, ..., UNDEFINED", the list being the types it takes.
UNNAMED_TYPE = re.compile(r"Unsupported data type\s+expected: ([A-Z0-9_]+(?:, [A-Z0-9_]+)*)")
# 2023.3: "unsupported element type" on a line of its own, no list; the types it takes, measured (Cast float -> T
# through its ONNX frontend, T every type of generator/dtypes.py but STRING):
UNNAMED_TYPE_2023 = re.compile(r"^unsupported element type$", re.MULTILINE)
TAKEN_2023 = frozenset({"BOOL", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "FLOAT16",
                        "BFLOAT16", "FLOAT", "DOUBLE"})
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
    words say it (the table), the types left out for an unnamed-type refusal, which is unsupported only where the
    model names a valid ONNX element type the frontend does not take (an invalid type stays an error)."""
    if UNSUPPORTED.matches(exc) or TRANSLATOR_UNSUPPORTED.matches(exc):
        return ""
    said = UNNAMED_TYPE.search(str(exc))
    if said is not None:
        taken = set(said.group(1).split(", "))
    elif UNNAMED_TYPE_2023.search(str(exc)):
        taken = set(TAKEN_2023)
    else:
        return None
    if model is None:
        return None
    known = {d.onnx for d in dtypes.all_dtypes()}
    left_out = sorted(TensorProto.DataType.Name(t) for t in _model_types(model) & known
                      if TensorProto.DataType.Name(t) not in taken)
    if not left_out:
        return None
    return f"the ONNX frontend does not take {', '.join(left_out)} (it takes {', '.join(sorted(taken))})"
