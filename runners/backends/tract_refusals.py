"""What tract says when it does not implement an op, an element type, an attribute value or a fed input
(docs/backends_tract.md): each entry is tract's own words, as tract 0.23.9 gave them on the committed suite.
Anything else tract raises is an error; so is a failed type inference ("Impossible to unify F16 with F32"),
whatever rule tract applied: the same words refuse a model whose types are wrong.
"""

from __future__ import annotations

import re

import onnx
import onnx.defs

from runners.backends.base import Unsupported, UnsupportedTable

UNSUPPORTED = UnsupportedTable(text=(
    r"Unknown DatumType \w+",  # the reader: an ONNX element type tract has no DatumType for (bfloat16, float8 ...)
    r"Unsupported DatumType in the public API String\b",  # a string output: the C API hands out no strings
    r"Unimplemented\([\w.]+\)",  # an op the reader has no builder for (its UnimplementedOp)
    r"must be a const",  # an input tract takes only as a constant (scales, zero points, MatMulNBits' B), fed
    r"blocked quantization is not supported",  # Quantize / DequantizeLinear with block_size
    r"unsupported per-axis output type \w+",  # per-axis QuantizeLinear to int16 / uint16
    r"\bUnsupported type [IUF]\d+\b",  # a kernel's refusal of an element type at run (DequantizeLinearF32: I16)
    r"MatMulNBits: only bits=\d+ (and bits=\d+ are|is) supported",  # 0.23.9 takes 4 and 2, 0.23.0 only 4
    r"MatMulNBits: g_idx \(act-order\) is unsupported",
))

# Of those, the refusals of a fed weight (--inputs auto runs the item again with its weights as initializers).
CONSTANT_ONLY = UnsupportedTable(text=(r"must be a const",))

# The reader's protobuf schema predates some element types (float6e2m3 / e3m2, 27 and 28): it names the number
# only, as it names an invalid one (Cast to=999), so the model decides (valid_type_number).
UNKNOWN_TYPE_NUMBER = re.compile(r"unknown ONNX TensorProto\.DataType \((\d+)\)")

# tract's name for a constant-only input -> its index in the node's inputs (its QuantizeLinear and
# DequantizeLinear both call their scale "y_scale")
SLOTS = {"y_scale": 1, "y_zero_point": 2, "MatMulNBits: quantized weight B": 1, "MatMulNBits: scales": 2,
         "MatMulNBits: zero_points": 3}
FED = re.compile(r'"(?P<node>[^"]*)" (?P<op>\w+) ToTypedTranslator: (?P<what>.+?) must be a const')


def message(exc: BaseException) -> str:
    """tract's error in one line: its context chain ("A: B: C"), without a backtrace."""
    text = str(exc).split("\n\nStack backtrace:", 1)[0]
    parts = [ln.strip() for ln in text.splitlines() if ln.strip() and ln.strip() != "Caused by:"]
    return ": ".join(re.sub(r"^\d+: ", "", p) for p in parts)[:800] or type(exc).__name__


def valid_type_number(text: str) -> bool:
    """The element type number tract's reader does not know is one ONNX defines."""
    said = UNKNOWN_TYPE_NUMBER.search(text)
    return said is not None and int(said.group(1)) in onnx.TensorProto.DataType.values()


def classified(exc: BaseException, where: str, model: onnx.ModelProto | None = None) -> Exception:
    """Unsupported where tract says it does not implement it, else the error in one line naming the phase."""
    text = message(exc)
    if UNSUPPORTED.matches(exc):
        return Unsupported(f"tract {where}: {fed_slot(text, model) or text}")
    if valid_type_number(text):
        return Unsupported(f"tract {where}: {text} (an ONNX element type tract's reader does not know)")
    return RuntimeError(f"tract {where}: {text}")


def fed_slot(text: str, model: onnx.ModelProto | None) -> str | None:
    """tract's refusal of a fed input, naming the node's ONNX input slot and the graph input fed there (tract
    names the slot its own way); None where the words or the model do not say which."""
    said = FED.search(text)
    index = SLOTS.get(said.group("what")) if said else None
    if index is None or model is None:
        return None
    node = next((n for n in model.graph.node if (n.name or (n.output[0] if n.output else "")) == said.group("node")
                 and n.op_type == said.group("op")), None)
    if node is None or index >= len(node.input):
        return None
    opset = {o.domain: o.version for o in model.opset_import}
    fed = f"fed as {node.input[index]!r}"
    try:
        schema = onnx.defs.get_schema(node.op_type, opset.get(node.domain, 1), node.domain)
        slot = f"{node.op_type}'s {schema.inputs[min(index, len(schema.inputs) - 1)].name} (input {index}, {fed})"
    except Exception:  # noqa: BLE001 - an op onnx does not know (com.microsoft): its index says enough
        slot = f"{node.op_type}'s input {index} ({fed})"
    return f"{slot}: tract takes it only as a constant: {text[said.start('what'):]}"
