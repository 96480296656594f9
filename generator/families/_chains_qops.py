"""The chains family's QDQ patterns that onnxruntime fuses into com.microsoft QOperators (issue 36, "The chains
family"): DequantizeLinear -> Add / Mul / Sigmoid / AveragePool / Concat / Gemm -> QuantizeLinear (its QDQ selectors,
qdq_selector_action_transformer.cc: "2DQ" QLinearAdd / QLinearMul, "1DQ" QLinearSigmoid / QLinearAveragePool, "*DQ"
QLinearConcat, "Gemm" QGemm) and DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul -> Add (MatMulIntegerToFloat,
then DynamicQuantizeMatMul: matmul_integer_to_float.cc, dynamic_quantize_matmul_fusion.cc). Registered into the
family's catalogue (_chains_common.CATALOGUE; generator/families/chains.py imports this module).

Each chain comes in the family's three inputs modes; params "rewrite" names the fusion it targets, "qop" the node it
fuses into. The expectation is the ONNX chain's (generator/reference/chains.py qop_chain / gemm_chain): compare mode
"range" names the QLinear operator (or the Gemm chain) whose float steps bound it; power-of-two scales make almost
every element exact, with requantization ties (an odd y_zero_point moves a tie where the zero point is added before
rounding), saturation at both ends, and zero points at the type's ends.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
import onnx
from onnx import helper

from generator.axes import with_tail
from generator.case import Case
from generator.families import _chains_common as base
from generator.reference import chains as ref
from generator.reference import dq_op_q, qlinear_ops

F32 = np.float32
MODES = ("fed", "initializers", "constant")
RANGE_REASON = ("one result per element unless a float32 order of the float operator can move the quotient across a "
                "rounding boundary; there, either neighbour (generator/reference/float_ops.py, dq_op_q.py)")
TOLERANT = {"widen": 1, "reason": "fixed-point requantization is common practice: +-1"}
CLAUSE = ("DequantizeLinear: y = (x - x_zero_point) * x_scale; {op} in float32; QuantizeLinear: y = saturate(round(x "
          "/ y_scale) + y_zero_point), ties to even. A fused {qop} must give what the three steps give")
SPECS = {"Add": "onnx.defs:Add-14", "Mul": "onnx.defs:Mul-14", "Sigmoid": "onnx.defs:Sigmoid-13",
         "AveragePool": "onnx.defs:AveragePool-11", "Concat": "onnx.defs:Concat-13", "Gemm": "onnx.defs:Gemm-13"}
QOP_OF = {"Add": "QLinearAdd", "Mul": "QLinearMul", "Sigmoid": "QLinearSigmoid", "AveragePool": "QLinearAveragePool",
          "Concat": "QLinearConcat"}


def _u8(v):
    return np.asarray(v, np.uint8)


def _i8(v):
    return np.asarray(v, np.int8)


def _roles(op: str, n: int) -> list[str]:
    if op in ("Add", "Mul"):
        return ["A", "B"]
    if op == "Concat":
        return [f"X{i}" for i in range(n)]
    return ["X"]


NEAR_TIE = 2.0 ** -12  # a quotient this close to a half-integer is "near a tie" (chains_faults._no_ties)


def exact_ties(e, lo, hi, r_over_scale, zero_point: int, to) -> bool:
    """Whether some element judged exactly (lo == hi) has its quotient within NEAR_TIE of a half-integer whose two
    neighbours (plus the zero point) are both in the output type: where a wrong tie rule can show. False proves
    that rules differing from round-half-even only that near a tie change no judged element."""
    q = np.asarray(r_over_scale, np.float64)
    below = np.floor(q + 0.5) - 1 + zero_point  # the lower neighbour of the nearest half-integer
    inside = (below >= to.int_min) & (below + 1 <= to.int_max)
    return bool(np.any((lo == hi) & inside & (np.abs(q - np.floor(q) - 0.5) <= NEAR_TIE)))


def _qop_entry(stem: str, op: str, operands: list[tuple], y: tuple, attrs: dict, *, what: str,
               modes=MODES) -> Callable[[], Iterator[Case]]:
    """A catalogue entry: DequantizeLinear of each operand (q, scale, zero point) -> op(attrs) -> QuantizeLinear(y =
    (scale, zero point)), once per inputs mode; the activations (each operand's q) fed where the mode feeds them."""
    qop = QOP_OF[op]
    roles = _roles(op, len(operands))

    def fn() -> Iterator[Case]:
        names = [r.lower() for r in roles]
        tensors, slot_names = {}, {}
        for role, name, (q, s, z) in zip(roles, names, operands):
            tensors.update({name: q, f"{name}_scale": np.asarray(s, F32), f"{name}_zero_point": z})
        tensors.update({"y_scale": np.asarray(y[0], F32), "y_zero_point": y[1]})
        slots = qlinear_ops.slots_of(qop, 2 + 3 * len(operands))
        for s in slots:
            name = "y" if s.role == qlinear_ops.OUT else s.role.lower()
            slot_names[s.name] = name if s.kind == "q" else f"{name}_{'scale' if s.kind == 'scale' else 'zero_point'}"
        inputs = [tensors[slot_names[s.name]] for s in slots]
        outcome, readings = ref.qop_chain(qop, inputs, attrs)
        e, lo, hi, _ = qlinear_ops.bounds(qop, inputs, attrs, zero_point_first=False)
        r = _float_value(qop, inputs, attrs)
        nodes = [helper.make_node("DequantizeLinear", [n, f"{n}_scale", f"{n}_zero_point"], [f"{n}_f"]) for n in names]
        nodes.append(helper.make_node(op, [f"{n}_f" for n in names], ["c"], **attrs))
        nodes.append(helper.make_node("QuantizeLinear", ["c", "y_scale", "y_zero_point"], ["y"]))
        compare = {"mode": "range", "operands": "dq_op_q", "reason": RANGE_REASON, "tolerant": dict(TOLERANT),
                   "chain": {"op": qop, **attrs, "n_inputs": len(slots)}, "tensors": slot_names}
        out = base.dtypes.from_numpy(y[1].dtype)
        params = {"qop": qop, "variant": stem, "zero_point": int(y[1]), "zero_point_type": out.name,
                  "ties": exact_ties(e, lo, hi, r / float(y[0]), int(y[1]), out), "what": what, "attrs": attrs,
                  "zero_points": [int(z) for _, _, z in operands], "scales": [float(s) for _, s, _ in operands]}
        yield from _modes(f"{base.FAMILY.prefix}_{stem}", op, nodes, tensors, set(names), outcome, compare, params,
                          readings, rewrite=f"qdq_{op.lower()}_fusion", modes=modes)
    fn.__name__, fn.opset = stem, base.QUANT_OPSET
    return fn


def _float_value(qop: str, inputs: list, attrs: dict) -> np.ndarray:
    """r / 1: the exact float value of the operator on the dequantized operands (to find the ties)."""
    from generator.reference import float_ops
    vals, scales, _, _, full = qlinear_ops.operands(qop, inputs, attrs)
    return float_ops.evaluate(qlinear_ops.QOPS[qop].float_op, vals, scales, full)[0]


def _modes(name: str, op: str, nodes, tensors: dict, activations: set, outcome, compare: dict, params: dict,
           readings, *, rewrite: str, modes=MODES, opset: int = base.QUANT_OPSET, pattern: str | None = None,
           clause: str | None = None, spec_file: str | None = None) -> Iterator[Case]:
    """The chain's case in each inputs mode (activations: the tensors fed where the mode feeds the activations)."""
    for mode in modes:
        constant = {"fed": set(), "initializers": set(tensors) - activations, "constant": set(tensors)}[mode]
        yield from base.cases(f"{name}_{mode}", opset=opset, mode=mode, rewrite=rewrite,
                               pattern=pattern or f"dq_{op.lower()}_q", op=op, spec_file=spec_file or SPECS[op],
                               clause=clause or CLAUSE.format(op=op, qop=params["qop"]), nodes=nodes, tensors=tensors,
                               constant=constant, outcome=outcome, output_names=["y"], params=params, compare=compare,
                               readings=readings)


# ---------------------------------------------------------------------------------------
# the data: every uint8 / int8 value against operands at the ends
# ---------------------------------------------------------------------------------------
ALL_U8 = np.arange(256, dtype=np.uint8).reshape(16, 16)
ALL_I8 = np.arange(-128, 128, dtype=np.int8).reshape(16, 16)
B_ROW_U8 = _u8([0, 255, 3, 4, 2, 5, 1, 6, 128, 127, 250, 10, 3, 7, 200, 60])  # B broadcast over A's rows

ENTRIES = [
    _qop_entry("dq_add_q", "Add", [(ALL_U8, 2 ** -4, _u8(128)), (B_ROW_U8, 2 ** -3, _u8(3))], (2 ** -2, _u8(129)), {},
               what="every uint8 A plus a broadcast row B with B at 0 and 255: ties of the requantization (an odd "
                    "C zero point), saturation at both ends"),
    _qop_entry("dq_add_q_int8", "Add", [(ALL_I8, 0.0173, _i8(-3)), (_i8(B_ROW_U8.astype(np.int16) - 128), 0.031,
                                                                 _i8(127))],
               (0.0459, _i8(-128)), {}, what="int8, scales off the power-of-two grid (the range of float32 orders), "
                                              "zero points at the type's ends"),
    _qop_entry("dq_mul_q", "Mul", [(ALL_U8, 2 ** -4, _u8(131)), (_u8([[0], [255], [129], [133], [130], [7], [128],
                                                                        [140], [131], [120], [135], [250], [127],
                                                                        [137], [134], [1]]), 2 ** -2, _u8(129))],
               (2 ** -3, _u8(127)), {}, what="every uint8 A times a broadcast column B: ties, saturation"),
    _qop_entry("dq_sigmoid_q", "Sigmoid", [(ALL_U8, 2 ** -4, _u8(128))], (2 ** -8, _u8(0)), {},
               what="Sigmoid over all 256 uint8 values, y_scale 1/256 (the quantizer's choice for Sigmoid)"),
    _qop_entry("dq_sigmoid_q_int8", "Sigmoid", [(ALL_I8, 0.05, _i8(0))], (2 ** -8, _i8(-128)), {},
               what="Sigmoid over all 256 int8 values, y zero point -128"),
]
# the vector-tail axis (generator/axes.py): 33 elements, the ties last (the partial last vector of every width 4 .. 32),
# B one element (the fused kernels' scalar-B path)
_TAIL_A = with_tail(_u8([128, 132, 124, 140]), _u8([130, 126, 134, 122]), 33)
ENTRIES += [
    _qop_entry("dq_add_q_tail", "Add", [(_TAIL_A, 2 ** -4, _u8(128)), (_u8([5]), 2 ** -3, _u8(3))],
               (2 ** -2, _u8(129)), {}, what="33 elements, B of one: the ties (a - 128 = 2 mod 4) in the last four"),
    _qop_entry("dq_mul_q_tail", "Mul", [(_TAIL_A, 2 ** -4, _u8(128)), (_u8([131]), 2 ** -1, _u8(129))],
               (2 ** -2, _u8(127)), {}, what="33 elements, B of one: the ties (a - 128 = 2 mod 4) in the last four"),
]
_POOL_X = _u8([[[[255, 0, 129, 7], [3, 255, 255, 1], [128, 131, 0, 255], [5, 250, 127, 2]],
                [[128, 129, 130, 131], [127, 126, 125, 124], [255, 255, 255, 255], [0, 0, 0, 1]]]])
for _inc in (0, 1):
    ENTRIES.append(_qop_entry(
        f"dq_averagepool_q_pad{'_include' if _inc else '_exclude'}", "AveragePool",
        [(_POOL_X, 2 ** -3, _u8(129))], (2 ** -3, _u8(127)),
        {"kernel_shape": [2, 2], "pads": [1, 1, 1, 1], "strides": [2, 2], "count_include_pad": _inc},
        what="2 x 2 windows with one pad on every side: 1, 2 or 4 real elements (count_include_pad=0) or 4 (=1); "
             "means on ties, saturation"))
ENTRIES.append(_qop_entry(
    "dq_concat_q", "Concat",
    [(_u8(np.arange(0, 256, 16).reshape(1, 2, 8) + 1), 2 ** -3, _u8(128)),
     (_u8([[[0, 255, 127, 128, 129, 130, 100, 160]] * 3]), 2 ** -1, _u8(120)),
     (_u8([[[0, 255, 128, 129, 3, 200, 77, 129]]]), 2 ** -2, _u8(129))],
    (2 ** -2, _u8(129)), {"axis": 1},
    what="three inputs of different scales and zero points (the last the output's own), requantized to the output's: "
         "ties, saturation"))
for _fn in ENTRIES:
    base.CATALOGUE(_fn)


# ---------------------------------------------------------------------------------------
# DequantizeLinear (A, B, C) -> Gemm -> QuantizeLinear: com.microsoft QGemm
# ---------------------------------------------------------------------------------------
GEMM_CLAUSE = ("DequantizeLinear of A, B and the int32 C (scale a_scale * b_scale, zero point 0: what a quantizer "
               "writes), Gemm-13 Y = alpha * A' * B' + beta * C, QuantizeLinear (ties to even). QGemm's C 'must be "
               "quantized with zero_point = 0 and scale = alpha / beta * a_scale * b_scale' (ContribOperators.md): a "
               "fusion that moves C across unchanged with alpha != 1 changes the result")


def _gemm_entry(stem: str, *, alpha: float, trans_b: int, what: str,
                c_factor: float = 1.0) -> Callable[[], Iterator[Case]]:
    """A catalogue entry: DequantizeLinear (A uint8, B int8, C int32 of scale c_factor * a_scale * b_scale) -> Gemm
    (alpha, transB) -> QuantizeLinear, in the three inputs modes."""
    def fn() -> Iterator[Case]:
        rng = np.random.Generator(np.random.PCG64(36))
        a = (128 + rng.integers(-6, 7, size=(4, 8))).astype(np.uint8)
        a[0] = [255, 255, 255, 255, 0, 0, 0, 0]
        b = rng.integers(-3, 4, size=(8, 3)).astype(np.int8)
        b[:, 0] = 127
        if trans_b:
            b = np.ascontiguousarray(b.T)
        a_s, b_s = 2.0 ** -4, 2.0 ** -5
        c = np.asarray([3, -2 ** 9, 7], np.int32)
        tensors = {"a": a, "a_scale": np.asarray(a_s, F32), "a_zero_point": _u8(128),
                   "b": b, "b_scale": np.asarray(b_s, F32), "b_zero_point": _i8(0),
                   "c": c, "c_scale": np.asarray(c_factor * a_s * b_s, F32), "c_zero_point": np.asarray(0, np.int32),
                   "y_scale": np.asarray(2 * a_s * b_s, F32), "y_zero_point": _u8(129)}
        node = {"op": "Gemm", "out": "uint8", "bias": True, "alpha": alpha, "beta": 1.0, "transA": 0,
                "transB": trans_b}
        order = {"x": "a", "x_scale": "a_scale", "x_zero_point": "a_zero_point", "w": "b", "w_scale": "b_scale",
                 "w_zero_point": "b_zero_point", "b": "c", "b_scale": "c_scale", "b_zero_point": "c_zero_point",
                 "y_scale": "y_scale", "y_zero_point": "y_zero_point"}
        inputs = [tensors[order[k]] for k in dq_op_q.NAMES]
        outcome, readings = ref.gemm_chain(inputs, node)
        e, lo, hi = dq_op_q.bounds(inputs, node)
        r = _gemm_value(inputs, node) / float(tensors["y_scale"])
        nodes = [helper.make_node("DequantizeLinear", [n, f"{n}_scale", f"{n}_zero_point"], [f"{n}_f"])
                 for n in ("a", "b", "c")]
        nodes.append(helper.make_node("Gemm", ["a_f", "b_f", "c_f"], ["g"], alpha=alpha, beta=1.0, transB=trans_b))
        nodes.append(helper.make_node("QuantizeLinear", ["g", "y_scale", "y_zero_point"], ["y"]))
        compare = {"mode": "range", "operands": "dq_op_q", "reason": RANGE_REASON, "tolerant": dict(TOLERANT),
                   "chain": node, "tensors": order}
        params = {"qop": "QGemm", "variant": stem, "zero_point": 129, "zero_point_type": "uint8", "x_type": "uint8",
                  "w_type": "int8", "alpha": alpha, "transB": trans_b, "bias": True, "c_factor": c_factor,
                  "ties": exact_ties(e, lo, hi, r, 129, base.dtypes.get("uint8")), "what": what}
        yield from _modes(f"{base.FAMILY.prefix}_{stem}", "Gemm", nodes, tensors, {"a"}, outcome, compare, params,
                          readings, rewrite="qdq_gemm_fusion", clause=GEMM_CLAUSE)
    fn.__name__, fn.opset = stem, base.QUANT_OPSET
    return fn


def _gemm_value(inputs: list, node: dict) -> np.ndarray:
    v = dict(zip(dq_op_q.NAMES, inputs))
    deq = [(np.asarray(v[k]).astype(np.float64) - float(v[f"{k}_zero_point"])) * float(v[f"{k}_scale"])
           for k in ("x", "w", "b")]
    return dq_op_q._gemm(node, *deq, magnitude=False)


for _fn in (_gemm_entry("dq_gemm_q", alpha=1.0, trans_b=1,
                        what="u8 x s8 with transB and a bias of a_scale * b_scale: ties, saturation (a row of 255)"),
            _gemm_entry("dq_gemm_q_alpha", alpha=2.0, trans_b=0,
                        what="alpha = 2 with a bias of a_scale * b_scale: QGemm reads C in alpha * a_scale * b_scale"),
            _gemm_entry("dq_gemm_q_bias_scale", alpha=1.0, trans_b=0, c_factor=2.0,
                        what="a bias of scale 2 * a_scale * b_scale: QGemm reads C in a_scale * b_scale, so a fusion "
                             "that moves C's int32 across unchanged must not fire")):
    base.CATALOGUE(_fn)


# ---------------------------------------------------------------------------------------
# DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul -> Add: MatMulIntegerToFloat, DynamicQuantizeMatMul
# ---------------------------------------------------------------------------------------
BIAS_CLAUSE = base.SCALED_CLAUSE + ("; Add of a constant bias (Add-14): a_scale = (127/64 + 2) / 255 = 2**-6 exactly, "
                                    "a on half steps of it (DynamicQuantizeLinear's ties, to even), every float "
                                    "step exact, so any order of a fused kernel's gives the same float32")


@base.CATALOGUE
def dql_matmul_integer_scaled_bias() -> Iterator[Case]:
    """DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(a_scale * b_scale) -> Add(bias): onnxruntime's
    MatMulIntegerToFloat (the bias a constant initializer of last dimension > 1), then DynamicQuantizeMatMul."""
    rng = np.random.Generator(np.random.PCG64(37))
    a = (rng.integers(-256, 254, size=(4, 8)) / 128).astype(F32)
    a[0, 0], a[0, 1] = F32(-2.0), F32(127 / 64)  # the range: a_scale = 2**-6, a_zero_point = 128
    a[1, :4] = F32([1 / 128, 3 / 128, -1 / 128, -3 / 128])  # quotients 0.5, 1.5, -0.5, -1.5: ties to even
    b = rng.integers(0, 256, size=(8, 3)).astype(np.uint8)
    b_zp, b_scale = _u8(117), np.asarray(2 ** -5, F32)
    bias = np.asarray([0.5, -3.25, 2 ** -11], F32)
    if not ref.dql_scaled_is_exact(a, b, b_zp, b_scale, bias):
        raise AssertionError("dql_matmul_integer_scaled_bias: the chain's float steps must be exact")
    outcome = ref.dql_matmul_integer_scaled(a, b, b_zp, b_scale, bias)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["a"], ["a_q", "a_scale", "a_zero_point"]),
             helper.make_node("MatMulInteger", ["a_q", "b", "a_zero_point", "b_zero_point"], ["y_int"]),
             helper.make_node("Cast", ["y_int"], ["y_f"], to=onnx.TensorProto.FLOAT),
             helper.make_node("Mul", ["a_scale", "b_scale"], ["s"]),
             helper.make_node("Mul", ["y_f", "s"], ["y_s"]),
             helper.make_node("Add", ["y_s", "bias"], ["y"])]
    tensors = {"a": a, "b": b, "b_zero_point": b_zp, "b_scale": b_scale, "bias": bias}
    readings = ref.dql_readings(a) + ref.cast_chain_readings(ref.dql_matmul_integer(a, b, b_zp).outputs[0],
                                                             ["int32", "float"])
    params = {"qop": "DynamicQuantizeMatMul", "bias": True, "length": int(a.size), "a_range": "255 * 2**-6",
              "a_step": "2**-7"}
    yield from _modes(f"{base.FAMILY.prefix}_dql_matmulinteger_scaled_bias", "MatMulInteger", nodes, tensors, {"a"},
                      outcome, base.EXACT, params,
                      readings, rewrite="matmul_integer_to_float_fusion", opset=base.DQL_OPSET,
                      pattern="dql_matmul_bias", clause=BIAS_CLAUSE, spec_file="onnx.defs:MatMulInteger-10")


dql_matmul_integer_scaled_bias.opset = base.DQL_OPSET


MITF_CLAUSE = ("MatMulInteger-10 of a statically quantized a: Y = matmul(A - a_zero_point, B - b_zero_point) in int32; Cast "
               "int32 -> float; Mul by a_scale * b_scale; Add of a constant bias: power-of-two scales and small "
               "integers make every float step exact, so any order of a fused MatMulIntegerToFloat's gives the same "
               "float32")


@base.CATALOGUE
def matmul_integer_scaled_bias() -> Iterator[Case]:
    """MatMulInteger (a fed, quantized with constant a_scale / a_zero_point) -> Cast -> Mul(a_scale * b_scale) ->
    Add(bias): onnxruntime's MatMulIntegerToFloat fusion, no DynamicQuantizeLinear to fold in."""
    rng = np.random.Generator(np.random.PCG64(38))
    a = rng.integers(0, 256, size=(4, 16)).astype(np.uint8)
    a[0] = 255
    b = rng.integers(-128, 128, size=(16, 5)).astype(np.int8)
    b[:, 0] = -128
    a_zp, b_zp = _u8(129), _i8(-1)
    a_scale, b_scale = np.asarray(2 ** -7, F32), np.asarray(2 ** -6, F32)
    bias = np.asarray([0.5, -1.25, 2 ** -13, 3.0, -0.0078125], F32)
    outcome = ref.matmul_integer_scaled(a, a_zp, b, b_zp, a_scale, b_scale, bias)
    nodes = [helper.make_node("MatMulInteger", ["a", "b", "a_zero_point", "b_zero_point"], ["y_int"]),
             helper.make_node("Cast", ["y_int"], ["y_f"], to=onnx.TensorProto.FLOAT),
             helper.make_node("Mul", ["a_scale", "b_scale"], ["s"]),
             helper.make_node("Mul", ["y_f", "s"], ["y_s"]),
             helper.make_node("Add", ["y_s", "bias"], ["y"])]
    tensors = {"a": a, "a_zero_point": a_zp, "a_scale": a_scale, "b": b, "b_zero_point": b_zp, "b_scale": b_scale,
               "bias": bias}
    acc = outcome.outputs[0].astype(np.float64) - bias.astype(np.float64)
    if not np.all(np.abs(acc) / 2 ** -13 < 2 ** 24):
        raise AssertionError("matmul_integer_scaled_bias: the chain's float steps must be exact")
    params = {"qop": "MatMulIntegerToFloat", "bias": True}
    yield from _modes(f"{base.FAMILY.prefix}_matmulinteger_scaled_bias", "MatMulInteger", nodes, tensors, {"a"},
                      outcome, base.EXACT, params, [], rewrite="matmul_integer_to_float_fusion",
                      opset=base.QUANT_OPSET, pattern="matmul_integer_bias", clause=MITF_CLAUSE,
                      spec_file="onnx.defs:MatMulInteger-10")


matmul_integer_scaled_bias.opset = base.QUANT_OPSET
