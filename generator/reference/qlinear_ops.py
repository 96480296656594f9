"""The com.microsoft QLinear* operators that are "dequantize -> float operator -> quantize" (onnxruntime
docs/ContribOperators.md @ 8b8f7749: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat, QLinearWhere; all com.microsoft version 1).

One table (QOPS): each row names the operator's inputs in node order (which tensor, scale or zero point of which
quantized operand), its float operator (generator/reference/float_ops.py) and its attributes' defaults. One node
function runs every row: dequantize each operand exactly, (q - zero_point) * scale [each text: "f(x) =
quantize(F(dequantize(x)))", QLinearAdd's C = (A_scale * (A - A_zero_point) + B_scale * (B - B_zero_point)) / C_scale
+ C_zero_point]; the float operator's exact value r; then y = saturate(round_half_even(r / y_scale) + y_zero_point)
(generator/reference/requantize.float_range). Adding an operator of this shape is a row here plus its float
function there.

The texts say less than a kernel needs; the readings (case.json "reading", docs/qlinear_ops.md):
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from generator import dtypes
from generator.outcome import Outcome
from generator.reference import float_ops
from generator.reference.requantize import float_range, is_power_of_two

DOMAIN = "com.microsoft"
SPEC_FILE = "onnxruntime:docs/ContribOperators.md"
SPEC_COMMIT = "8b8f7749703544a8d974f87d7a301dde28e36bc9"

READING_ROUNDING = ("quantize(): the texts name no rounding; read as QuantizeLinear's, round to nearest, ties to even, "
                    "the zero point added to the rounded integer, then saturated to the output type")
READING_FORMULA_ROUNDING = ("QLinearAdd / QLinearMul: the formula '... / C_scale + C_zero_point' names no rounding; read "
                            "as the whole right-hand side, C_zero_point included, rounded once to nearest, ties to "
                            "even, then saturated (a tie at an odd C_zero_point rounds as the sum with it does)")
READING_FLOAT32 = ("the float operator between dequantize and quantize is read as IEEE float32 in any order of its "
                   "operations (exp and the logistic within 32 ulps): where that order can move r / y_scale across a "
                   "rounding boundary, the element may be either neighbour (compare mode range); where every term is "
                   "a multiple of one power of two and fits float32, every order is exact and the tie rounds to even")
READING_DEFAULT_ZERO_POINT = "an omitted zero point is 0 (the texts: 'Default value is 0 if it's not specified')"
READING_CEIL = ("QLinearAveragePool with ceil_mode: a window that runs past the end padding counts the padded positions "
                "it covers (count_include_pad=1), never the positions beyond them, as AveragePool's own rule does")
READING_SCALAR = ("scales and zero points 'It's a scalar': read as a tensor of one element, of shape [] or [1]")
READINGS = (READING_ROUNDING, READING_FORMULA_ROUNDING, READING_FLOAT32, READING_DEFAULT_ZERO_POINT, READING_CEIL, READING_SCALAR)
__doc__ += "\n".join(f"  - {r}" for r in READINGS) + "\n"

UNDEF_Y_SCALE = "y_scale is 0, negative or not finite: quantize() divides by it and the texts say nothing of it"
UNDEF_EMPTY_WINDOW = "a pooling window covers no input element and no counted pad: its mean is 0 / 0"

# an input slot: (node input name, the operand's role, what it is: "q" the quantized tensor, "scale", "zp", "cond"),
# and whether the node may omit it
OUT = "out"  # the role of the output's scale and zero point


@dataclass(frozen=True)
class Slot:
    name: str
    role: str
    kind: str
    optional: bool = False


def _operand(role: str, names: tuple[str, str, str], zp_optional: bool = True) -> list[Slot]:
    return [Slot(names[0], role, "q"), Slot(names[1], role, "scale"), Slot(names[2], role, "zp", zp_optional)]


def _output(names: tuple[str, str], zp_optional: bool = True) -> list[Slot]:
    return [Slot(names[0], OUT, "scale"), Slot(names[1], OUT, "zp", zp_optional)]


@dataclass(frozen=True)
class QOp:
    op: str  # the com.microsoft operator
    float_op: str  # its row in float_ops.ROWS
    slots: Callable[[int], list[Slot]]  # the node's inputs in order (given the node's input count: QLinearConcat)
    attrs: dict = field(default_factory=dict)  # the attributes' defaults
    required: tuple = ()  # attributes the schema requires
    clause: str = ""
    output: str = "Y"  # the output's name in the schema
    zero_point_first: bool = False  # the text's formula adds the output zero point before its rounding


def _unary(x: str, zp_optional: bool = True, names=("X", "X_scale", "X_zero_point", "Y_scale", "Y_zero_point"),
           out_zp_optional: bool = True):
    return lambda n: _operand("X", names[:3], zp_optional) + _output(names[3:], out_zp_optional)


def _binary(n: int) -> list[Slot]:
    return (_operand("A", ("A", "A_scale", "A_zero_point")) + _operand("B", ("B", "B_scale", "B_zero_point"))
            + _output(("C_scale", "C_zero_point")))


def _concat(n: int) -> list[Slot]:
    slots = _output(("Y_scale", "Y_zero_point"), zp_optional=False)
    for i in range((n - 2) // 3):
        slots += _operand(f"X{i}", (f"X{i}", f"X{i}_scale", f"X{i}_zero_point"), zp_optional=False)
    return slots


def _where(n: int) -> list[Slot]:
    return ([Slot("condition", "condition", "cond")] + _operand("X", ("X", "x_scale", "x_zero_point"), False)
            + _operand("Y", ("Y", "y_scale", "y_zero_point"), False) + _output(("z_scale", "z_zero_point"), False))


QOPS = {row.op: row for row in (
    QOp("QLinearAdd", "Add", _binary, clause="QLinearAdd: C = (A_scale * (A - A_zero_point) + B_scale * (B - "
        "B_zero_point))/C_scale + C_zero_point, numpy-style broadcasting", output="C", zero_point_first=True),
    QOp("QLinearMul", "Mul", _binary, clause="QLinearMul: C = ((A - A_zero_point) * (B - B_zero_point)) * (A_scale * "
        "B_scale)/C_scale + C_zero_point, numpy-style broadcasting", output="C", zero_point_first=True),
    QOp("QLinearSigmoid", "Sigmoid", _unary("X"), clause="QLinearSigmoid: f(x) = quantize(Sigmoid(dequantize(x))), "
        "Sigmoid(x) = 1 / (1 + exp(-x))"),
    QOp("QLinearLeakyRelu", "LeakyRelu", _unary("X"), {"alpha": float_ops.LEAKY_ALPHA_DEFAULT},
        clause="QLinearLeakyRelu: f(x) = quantize(alpha * dequantize(x)) for dequantize(x) < 0, "
        "f(x) = quantize(dequantize(x)) for dequantize(x) >= 0"),
    QOp("QLinearSoftmax", "Softmax", _unary("X", names=("X", "X_scale", "x_zero_point", "y_scale", "y_zero_point"),
                                            out_zp_optional=False),
        {"axis": float_ops.SOFTMAX_AXIS_DEFAULT}, required=("opset",),
        clause="QLinearSoftmax: Softmax(input, axis) = Exp(input) / ReduceSum(Exp(input), axis=axis, keepdims=1); "
        "axis as Softmax-13 for opset 13+, the input coerced to an NxD matrix for opset 12-"),
    QOp("QLinearAveragePool", "AveragePool", _unary("X", names=("X", "x_scale", "x_zero_point", "y_scale",
                                                                  "y_zero_point")),
        {"auto_pad": "NOTSET", "ceil_mode": 0, "channels_last": 0, "count_include_pad": 0}, required=("kernel_shape",),
        clause="QLinearAveragePool: Output = Dequantize(Input) -> AveragePool on fp32 data -> Quantize(output); each "
        "window divided by the number of elements (exclude pad when count_include_pad is zero)"),
    QOp("QLinearGlobalAveragePool", "GlobalAveragePool",
        _unary("X", False, ("X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"), False), {"channels_last": 0},
        clause="QLinearGlobalAveragePool: AveragePool with kernel size equal to the spatial dimension of the input; "
        "channels_last: N x D1 .. Dn x C"),
    QOp("QLinearConcat", "Concat", _concat, required=("axis",),
        clause="QLinearConcat: the (tensor, scale, zero point) inputs concatenated on axis, requantized to Y's scale "
        "and zero point"),
    QOp("QLinearWhere", "Where", _where, clause="QLinearWhere: elements from X where condition is true, else from Y, "
        "of the broadcast shape, in Z's scale and zero point", output="Z"),
)}


def slots_of(op: str, n_inputs: int) -> list[Slot]:
    return QOPS[op].slots(n_inputs)


def _scalar(v, what: str) -> np.ndarray:
    a = np.asarray(v)
    if a.size != 1 or a.ndim > 1:
        raise ValueError(f"{what} must be a scalar (one element), not of shape {list(a.shape)} [READING_SCALAR]")
    return a.reshape(())


def operands(op: str, inputs: list, attrs: dict) -> tuple[dict, dict, dict, dtypes.DType, dict]:
    """(dequantized operands by role, scales by role, zero points by role, the output type, attrs with defaults)
    of a node's inputs (None for an omitted one)."""
    row = QOPS[op]
    full = dict(row.attrs, **attrs)
    slots = row.slots(len(inputs))
    if len(inputs) > len(slots):
        raise ValueError(f"{op} takes {len(slots)} inputs, not {len(inputs)}")
    q, scales, zps = {}, {}, {}
    for slot, v in zip(slots, list(inputs) + [None] * (len(slots) - len(inputs))):
        if v is None:
            if not slot.optional:
                raise ValueError(f"{op}: input {slot.name} is required")
            continue
        if slot.kind in ("q", "cond"):
            q[slot.role] = np.asarray(v)
        elif slot.kind == "scale":
            scales[slot.role] = float(np.float32(_scalar(v, slot.name)))
        else:
            zps[slot.role] = _scalar(v, slot.name)
    out_type = dtypes.from_numpy(next(a for r, a in q.items() if r != "condition").dtype)
    vals = {}
    for role, a in q.items():
        if role == "condition":
            vals[role] = a
            continue
        z = int(zps[role]) if role in zps else 0
        vals[role] = (a.astype(np.float64) - z) * scales[role]
    return vals, scales, zps, out_type, full


def bounds(op: str, inputs: list, attrs: dict, zero_point_first: bool | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(expected, lo, hi, why) per output element: the reference's value, what any float32 evaluation gives
    (READING_FLOAT32), and the reason an element is undefined ("" where defined). zero_point_first: where the output
    zero point goes in the rounding; None: the row's (READING_FORMULA_ROUNDING for QLinearAdd / QLinearMul, else
    READING_ROUNDING); False for a DequantizeLinear -> op -> QuantizeLinear chain (QuantizeLinear's order)."""
    vals, scales, zps, out, full = operands(op, inputs, attrs)
    row = QOPS[op]
    r, err, exact = float_ops.evaluate(row.float_op, vals, scales, full)
    ys = scales[OUT]
    zp = int(zps[OUT]) if OUT in zps else 0
    why = np.full(r.shape, "", dtype=object)
    if not (np.isfinite(ys) and ys > 0):
        why[...] = UNDEF_Y_SCALE
        ys = 1.0
    why[np.isnan(r) & (why == "")] = UNDEF_EMPTY_WINDOW
    r = np.where(np.isnan(r), 0.0, r)
    first = row.zero_point_first if zero_point_first is None else zero_point_first
    e, lo, hi = float_range(r, err, ys, zp, out, exact & is_power_of_two(ys), first)
    return e, lo, hi, why


def qlinear(op: str, inputs: list, attrs: dict) -> Outcome:
    """The row's operator on one data set [the row's clause; the readings above]."""
    e, _, _, why = bounds(op, inputs, attrs)
    return Outcome.by_element([e], why.astype(str) if why.size else np.zeros(e.shape, dtype=str))


def _node(op: str):
    def node(inputs, attrs, opset, input_types):
        return list(qlinear(op, inputs, attrs).outputs)
    node.validate = lambda attrs, opset, input_types, input_ranks: validate(op, attrs, input_types)
    return node


def validate(op: str, attrs: dict, input_types: list) -> None:
    """Raise for a model the text rules out (negative cases): a required attribute missing, operands of different
    types T, a float tensor where T is uint8 / int8, a condition that is not bool."""
    row = QOPS[op]
    for name in row.required:
        if name not in attrs:
            raise ValueError(f"{op}: attribute {name} is required")
    slots = row.slots(len(input_types))
    ts = [t for s, t in zip(slots, input_types) if t is not None and s.kind in ("q", "zp")]
    names = {t.name for t in ts}
    if len(names) > 1 or names - {"uint8", "int8"}:
        raise ValueError(f"{op}: the tensors and zero points are all T, uint8 or int8 (got {sorted(names)})")
    for s, t in zip(slots, input_types):
        if t is not None and s.kind == "scale" and t.name != "float":
            raise ValueError(f"{op}: {s.name} is tensor(float), not {t.name}")
        if t is not None and s.kind == "cond" and t.name != "bool":
            raise ValueError(f"{op}: condition is tensor(bool), not {t.name}")


NODES = {(DOMAIN, op): _node(op) for op in QOPS}
