"""Fault models of the chains family: wrong graph rewrites, each a plausible optimizer bug (generator/faults.py).

A chain fault is a rewrite of the whole model (a pair of nodes removed or merged, a node rebuilt without its
attributes) or a fused kernel that computes one step otherwise (a node function swapped in); `run` applies it and
runs the result node by node on the references (generator.interpret), which is what a backend with that bug alone
would output. Fault.fn: model -> (rewritten model, {(domain, op_type): node function swapped in}).
"""

from __future__ import annotations

import copy

import numpy as np
import onnx
from onnx import helper

from generator import dot_bound, dtypes, faults
from generator.faults import Fault
from generator.interpret import compile_model, run_program
from generator.reference import cast as cast_ref
from generator.reference import dynamic_quantize_linear_faults as dql_faults
from generator.reference import _chains_qop_faults as qop_faults
from generator.reference import chains_fused, float8_bitwise, qlinear_conv_faults, qlinear_matmul_faults
from generator.reference import lookup as reference_lookup
from generator.reference import matmul_integer as mmi
from generator.reference.quantize_linear_faults import FAULTS as QL_FAULTS

# the types whose every value the second one holds: a Cast pair through them is the identity
LOSSLESS = {("float16", "float"), ("bfloat16", "float"), ("float", "double"), ("float16", "double")}


def _rebuilt(model: onnx.ModelProto, nodes: list[onnx.NodeProto]) -> onnx.ModelProto:
    out = copy.deepcopy(model)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def _pair(model: onnx.ModelProto, first_op: str, second_op: str):
    """The first node pair first_op -> second_op where the second reads the first's output, or None."""
    nodes = list(model.graph.node)
    for i, a in enumerate(nodes):
        for j, b in enumerate(nodes):
            if a.op_type == first_op and b.op_type == second_op and b.input and b.input[0] == a.output[0]:
                return i, j
    return None


def _replace_pair(model: onnx.ModelProto, i: int, j: int, node: onnx.NodeProto) -> onnx.ModelProto:
    """The model with nodes i and j (i before j) replaced by `node`, where j was: after what feeds i, before what
    reads j."""
    nodes = [node if k == j else copy.deepcopy(n) for k, n in enumerate(model.graph.node) if k != i]
    return _rebuilt(model, nodes)


def cast_pair_removed(model: onnx.ModelProto):
    """Cast(a -> b) -> Cast(b -> c) becomes one Cast(a -> c) with the second's attributes (a -> a: no node);
    a model without such a pair is left as it is."""
    pair = _pair(model, "Cast", "Cast")
    if pair is None:
        return model, {}
    first, second = model.graph.node[pair[0]], model.graph.node[pair[1]]
    types = {v.name: v.type.tensor_type.elem_type for v in list(model.graph.input) + list(model.graph.output)}
    types.update((i.name, i.data_type) for i in model.graph.initializer)
    attrs = {a.name: helper.get_attribute_value(a) for a in second.attribute}
    if attrs["to"] == types.get(first.input[0]):
        merged = helper.make_node("Identity", [first.input[0]], [second.output[0]])
    else:
        merged = helper.make_node("Cast", [first.input[0]], [second.output[0]], **attrs)
    return _replace_pair(model, *pair, merged), {}


def _identity(inputs, attrs, opset, types):
    return [np.asarray(inputs[0]).copy()]


def cast_folded_saturating(model: onnx.ModelProto):
    """Every Cast to float16 saturates: a finite value beyond 65504 gives +-65504, not +-Inf."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        if dtypes.get(int(attrs["to"])).name != "float16":
            return [y]
        x = np.asarray(inputs[0])
        with np.errstate(all="ignore"):
            finite = np.isfinite(x.astype(np.float64)) if types[0].is_float or types[0].is_integer else True
            y = np.where(finite & np.isinf(y.astype(np.float64)), np.copysign(np.float16(65504), y), y)
        return [y.astype(np.float16)]
    return model, {("", "Cast"): fn}


def same_type_cast_ftz(model: onnx.ModelProto):
    """A Cast to the input's own type runs a converting kernel with subnormals flushed to (signed) zero."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        if not types[0].is_float or dtypes.get(int(attrs["to"])) != types[0]:
            return [y]
        tiny = np.finfo(y.dtype).tiny
        with np.errstate(all="ignore"):
            return [np.where(np.abs(y) < tiny, np.copysign(y.dtype.type(0), y), y).astype(y.dtype)]
    return model, {("", "Cast"): fn}


def same_type_cast_plus_zero(model: onnx.ModelProto):
    """A Cast to the input's own type gives +0 for subnormals and for -0 (a folder that flushes and loses the sign
    of zero)."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        if not types[0].is_float or dtypes.get(int(attrs["to"])) != types[0]:
            return [y]
        with np.errstate(all="ignore"):
            return [np.where(np.abs(y) < np.finfo(y.dtype).tiny, y.dtype.type(0), y).astype(y.dtype)]
    return model, {("", "Cast"): fn}


def float8_saturate_ignored(model: onnx.ModelProto):
    """Casts to float8 never saturate: saturate=1 behaves as 0 (out of range gives NaN / Inf)."""
    nodes = []
    for n in model.graph.node:
        n = copy.deepcopy(n)
        if n.op_type == "Cast" and dtypes.get(next(a.i for a in n.attribute if a.name == "to")).is_float8:
            kept = [a for a in n.attribute if a.name != "saturate"]
            del n.attribute[:]
            n.attribute.extend(kept + [helper.make_attribute("saturate", 0)])
        nodes.append(n)
    return _rebuilt(model, nodes), {}


def cast_saturate_dropped(model: onnx.ModelProto):
    """The Cast nodes are rebuilt with `to` alone: saturate=0 is lost (the default, 1, holds)."""
    nodes = []
    for n in model.graph.node:
        if n.op_type == "Cast":
            to = next(a.i for a in n.attribute if a.name == "to")
            n = helper.make_node("Cast", list(n.input), list(n.output), to=to)
        nodes.append(copy.deepcopy(n))
    return _rebuilt(model, nodes), {}


def qdq_pair_removed(model: onnx.ModelProto):
    """QuantizeLinear -> DequantizeLinear is removed: y = x (a model without the pair is left as it is)."""
    pair = _pair(model, "QuantizeLinear", "DequantizeLinear")
    if pair is None:
        return model, {}
    q, dq = model.graph.node[pair[0]], model.graph.node[pair[1]]
    return _replace_pair(model, *pair, helper.make_node("Identity", [q.input[0]], [dq.output[0]])), {}


_PAIRS16 = {"QLinearConv": next(f.fn for f in qlinear_conv_faults.FAULTS
                                 if f.name == "qlinear_conv.int16_pair_saturation"),
            "QLinearMatMul": next(f.fn for f in qlinear_matmul_faults.FAULTS
                                  if f.name == "qlinear_matmul.int16_pair_saturation")}
_QL_HALF_AWAY = next(f for f in QL_FAULTS if f.name == "quantize_linear.round_half_away").fn
_QL_ZP_FIRST = next(f for f in QL_FAULTS if f.name == "quantize_linear.zero_point_before_rounding").fn


def requant_zero_point_before_rounding(model: onnx.ModelProto):
    """The QuantizeLinear step rounds x / y_scale + y_zero_point (ties move with an odd zero point)."""
    return model, {("", "QuantizeLinear"): _QL_ZP_FIRST}


def requant_round_half_away(model: onnx.ModelProto):
    """The QuantizeLinear step (in a fused kernel) rounds half away from zero."""
    return model, {("", "QuantizeLinear"): _QL_HALF_AWAY}


_QL_ADD_HALF = {f.name: f.fn for f in QL_FAULTS if f.name.startswith("quantize_linear.add_half_truncate")}


def requant_add_half_truncate(model: onnx.ModelProto):
    """The QuantizeLinear step to uint8 adds the zero point and 0.4999999 in float32 and truncates (the
    quantize_linear family's add_half_truncate; with y_scale a constant of the model, its folded form
    add_half_truncate_constant_scale)."""
    constants = {t.name for t in model.graph.initializer} | {
        o for n in model.graph.node if n.op_type == "Constant" for o in n.output}
    q = next((n for n in model.graph.node if n.op_type == "QuantizeLinear"), None)
    folded = q is not None and len(q.input) > 1 and q.input[1] in constants
    name = "quantize_linear.add_half_truncate" + ("_constant_scale" if folded else "")
    return model, {("", "QuantizeLinear"): _QL_ADD_HALF[name]}


def matmul_integer_a_zero_point_ignored(model: onnx.ModelProto):
    """MatMulInteger (or the fused DynamicQuantizeMatMul) leaves a_zero_point out."""
    def fn(inputs, attrs, opset, types):
        b_zp = inputs[3] if len(inputs) > 3 else None
        return [mmi.matmul_integer(inputs[0], inputs[1], None, b_zp)]
    return model, {("", "MatMulInteger"): fn}


def e5m2_carry_nan(model: onnx.ModelProto):
    """Casts to float8e5m2 with saturate=0: a value whose rounding carries past the largest finite 57344
    (61440 <= |x| < 65536) gives NaN (0x7F) instead of Inf: the rounding step's overflow branch writes the NaN
    encoding, the Inf one is taken only for larger exponents."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        to = dtypes.get(int(attrs["to"]))
        saturate = int(attrs.get("saturate", 1))
        if to.name != "float8e5m2" or saturate or not (types[0].is_float or types[0].is_integer):
            return [y]
        with np.errstate(all="ignore"):
            v = np.abs(np.asarray(inputs[0]).astype(np.float64))
        carry = (v >= 61440.0) & (v < 65536.0)
        return [np.where(carry, to.from_bits(np.array([0x7F], dtype=np.uint8))[0], y).astype(y.dtype)]
    return model, {("", "Cast"): fn}


def _float_to_int64_via_int32(saturating: bool):
    """Cast float -> int64 through a 32-bit conversion: beyond int32 the result saturates to int32's ends
    (saturating) or is the x86 'integer indefinite' 0x80000000 sign-extended (cvttss2si with a 32-bit
    destination); in range it truncates as the reference does."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        if not types[0].is_float or dtypes.get(int(attrs["to"])).name != "int64":
            return [y]
        with np.errstate(all="ignore"):
            v = np.trunc(np.asarray(inputs[0]).astype(np.float64))
            out = (v < -(2.0**31)) | (v > 2.0**31 - 1) | np.isnan(v)
        if saturating:
            wrong = np.where(v > 0, 2**31 - 1, -(2**31))
        else:
            wrong = np.full(v.shape, -(2**31))
        return [np.where(out, wrong, y).astype(np.int64)]

    def rewrite(model: onnx.ModelProto):
        return model, {("", "Cast"): fn}
    return rewrite


_F8_TYPES = ("float8e4m3fn", "float8e5m2")  # the float 8 types its chains convert through


def _f8_encode_wrapping(x: np.ndarray, to: str) -> np.ndarray:
    """float32 -> float8 bits by bit arithmetic without special cases (generator/reference/float8_bitwise.py)."""
    return float8_bitwise.encode(x, to)


def _f8_decode_normal(bits: np.ndarray, src: str) -> np.ndarray:
    """float8 bits -> float32, every encoding read as a normal number (generator/reference/float8_bitwise.py)."""
    return float8_bitwise.decode(bits, src)


def float8_bitwise_normal_only(model: onnx.ModelProto):
    """Cast float32 <-> float8e4m3fn / float8e5m2 by bit arithmetic that knows only normal numbers
    (_f8_encode_wrapping, _f8_decode_normal): no zero, subnormal, Inf, NaN or saturation rule."""
    def fn(inputs, attrs, opset, types):
        (y,) = cast_ref.cast_node(inputs, attrs, opset, types)
        src, to = types[0].name, dtypes.get(int(attrs["to"])).name
        if src == "float" and to in _F8_TYPES:
            return [dtypes.get(to).from_bits(_f8_encode_wrapping(inputs[0], to))]
        if src in _F8_TYPES and to == "float":
            return [_f8_decode_normal(types[0].to_bits(np.asarray(inputs[0])), src)]
        return [y]
    return model, {("", "Cast"): fn}


_DQL_OPENVINO = next(f.fn for f in dql_faults.FAULTS
                     if f.name == "dynamic_quantize_linear.scale_reciprocal_y_from_range")
_DQL_TAIL8 = next(f.fn for f in dql_faults.FAULTS if f.name == "dynamic_quantize_linear.min_max_skip_tail8")


def dql_min_max_skip_tail8(model: onnx.ModelProto):
    """The DynamicQuantizeLinear step reduces min / max over whole 8-element vectors only (the
    dynamic_quantize_linear fault model min_max_skip_tail8)."""
    return model, {("", "DynamicQuantizeLinear"): _DQL_TAIL8}


def dql_scale_reciprocal_y_from_range(model: onnx.ModelProto):
    """The DynamicQuantizeLinear step computes y_scale as range * float32(1 / 255) and y from x * 255 / range (the
    DynamicQuantizeLinear fault model of that name)."""
    return model, {("", "DynamicQuantizeLinear"): _DQL_OPENVINO}


# ---------------------------------------------------------------------------------------
# where each fault can differ
# ---------------------------------------------------------------------------------------
def _pattern(*names):
    return lambda params: params.get("pattern") in names


def _two_casts(params: dict) -> bool:
    return params.get("pattern") == "cast" and len(params.get("types", [])) >= 3


def _lossless_pair(params: dict) -> str | None:
    t = params["types"]
    if (t[0], t[1]) in LOSSLESS and t[2] == t[0]:
        return f"{t[0]} -> {t[1]} is exact: the pair is the identity, as the merged Cast {t[0]} -> {t[2]} is"
    return None


def _float16_overflow(params: dict) -> str | None:
    t = params["types"]
    if t[0] == "float16":
        return "a float16 target receives float16 values only: it never overflows"
    if t[-1] not in ("float", "double", "float16"):
        return ("where float16 overflows to Inf the integer result is undefined (Cast.txt: float -> integer out of "
                "range), so the fault differs on no defined element")
    return None


def _has_float16_target(params: dict) -> bool:
    return params.get("pattern") == "cast" and "float16" in params.get("types", [])[1:]


def _same_type(params: dict) -> bool:
    t = params.get("types", [])
    return params.get("pattern") == "cast" and len(t) == 2 and t[0] == t[1]


def _sat(params: dict) -> bool:
    return params.get("pattern") == "cast" and params.get("saturate") is True


_REQUANT = ("qdq", "dq_conv_q", "dq_matmul_q") + qop_faults.QOP_PATTERNS  # chains whose last step quantizes
_DQL = ("dql_matmul", "dql_matmul_scaled", "dql_matmul_tail", "dql_matmul_bias")
_MMI = _DQL + ("matmul_integer_bias",)  # chains with a MatMulInteger


def _even_zero_point(params: dict) -> str | None:
    if int(params["zero_point"]) % 2 == 0:
        return ("an even zero point: rounding half to even commutes with adding it, so the order of the two steps "
                "changes nothing")
    return qop_faults.no_ties(params)


def _not_uint8(params: dict) -> str | None:
    if params.get("zero_point_type", "uint8") != "uint8":
        return "an output other than uint8: the quantizing step's add-half path is uint8's alone"
    return qop_faults.no_ties(params)


def _nosat(params: dict) -> bool:
    return params.get("pattern") == "cast" and params.get("saturate") is False


def _to_e5m2_nosat(params: dict) -> bool:
    return _nosat(params) and "float8e5m2" in params.get("types", [])[1:]


def _float_to_int64(params: dict) -> bool:
    t = params.get("types", [])
    return params.get("pattern") == "cast" and any(
        dtypes.get(a).is_float and b == "int64" for a, b in zip(t, t[1:]))


FAULTS: tuple[Fault, ...] = (
    Fault("chains.cast_pair_removed", "merges Cast a -> b -> c into Cast a -> c (removes a lossy pair)",
          cast_pair_removed, applies=_two_casts,
          seen_in="OpenVINO 2026.4 CPU, fed inputs (measured here: float -> float16 -> float, int32 -> float16 -> "
                  "int32 / float run as one Convert)", equivalent=_lossless_pair),
    Fault("chains.cast_folded_saturating", "a Cast to float16 saturates finite overflow to +-65504 instead of +-Inf",
          cast_folded_saturating, seen_in="OpenVINO 2026.4 constant folding of int32 -> float16 (measured here: 70000 -> 65504)",
          applies=_has_float16_target, equivalent=_float16_overflow),
    Fault("chains.cast_saturate_dropped", "a rewrite rebuilds Cast nodes with `to` alone: saturate=0 becomes 1",
          cast_saturate_dropped, applies=_nosat,
          seen_in="not seen; modelled as an optimizer that rebuilds a Cast from its `to` alone (a Cast-13 node "
                  "builder used on a Cast-19 node)"),
    Fault("chains.same_type_cast_ftz", "a Cast to the same type, kept as a converting kernel, flushes subnormals "
          "to zero", same_type_cast_ftz, applies=_same_type,
          seen_in="not seen; modelled as a Cast kept as a converting kernel run with FTZ / DAZ set"),
    Fault("chains.same_type_cast_plus_zero", "a Cast to the same type gives +0 for subnormals and for -0",
          same_type_cast_plus_zero, applies=_same_type,
          seen_in="OpenVINO 2026.4 constant folding of Cast float -> float (measured here)"),
    Fault("chains.float8_saturate_ignored", "Casts to float8 never saturate: saturate=1 gives NaN / Inf out of range",
          float8_saturate_ignored, applies=_sat, seen_in="OpenVINO 2026.4 (measured here: fed and folded)"),
    Fault("chains.qdq_pair_removed", "removes QuantizeLinear -> DequantizeLinear (y = x)", qdq_pair_removed,
          applies=_pattern("qdq"),
          seen_in="not seen; modelled as a QDQ-stripping pass run on a model that is meant to keep its "
                  "quantization error (a float fallback of the QDQ pair)"),
    Fault("chains.requant_round_half_away", "the quantizing step (or the fused kernel's requantization) rounds "
          "half away from zero", requant_round_half_away, applies=_pattern(*_REQUANT), equivalent=qop_faults.no_ties,
          seen_in="not seen in a chain; modelled as the quantize_linear family's round_half_away inside a fused "
                  "kernel (std::round in the requantization)"),
    Fault("chains.requant_zero_point_before_rounding", "the quantizing step rounds x / y_scale + y_zero_point "
          "instead of adding the zero point to the rounded quotient", requant_zero_point_before_rounding,
          applies=_pattern(*_REQUANT), equivalent=_even_zero_point,
          seen_in="OpenVINO 2026.4 (measured here: Q -> DQ with an odd zero point, fed and folded; DQ -> Add / Mul / "
                  "Concat -> Q); onnxruntime 1.32's fused QLinearAdd, QLinearMul and QLinearAveragePool (measured "
                  "here: test_chain_dq_add_q_*, dq_mul_q_*, dq_averagepool_q_pad_* at graph_optimization_level "
                  "extended and above)"),
    Fault("chains.requant_add_half_truncate", "the quantizing step to uint8 adds the zero point and 0.4999999 in "
          "float32 and truncates (with a constant y_scale, x * float32(1 / y_scale) fused with it)",
          requant_add_half_truncate, applies=_pattern(*_REQUANT), equivalent=_not_uint8,
          seen_in="tinygrad 0.14.0 CPU (measured here: test_chain_qdq_uint8_fed / _initializers / _constant and "
                  "test_chain_dq_conv_q_fed / _initializers, data set 0 each; the quantize_linear family's "
                  "add_half_truncate and add_half_truncate_constant_scale in a chain)"),
    Fault("chains.fused_int16_pair_saturation", "the DequantizeLinear -> Conv / MatMul -> QuantizeLinear chain fused "
          "into QLinearConv / QLinearMatMul whose kernel adds the raw x * w products in adjacent pairs with int16 "
          "saturation (x86 VPMADDUBSW: x uint8, w int8)", chains_fused.fused_with(_PAIRS16),
          applies=lambda p: p.get("pattern") in ("dq_conv_q", "dq_matmul_q") and p.get("x_type") == "uint8"
          and p.get("w_type") == "int8", cpu="x86-64 without VNNI",
          seen_in="onnxruntime 1.32 with graph_optimization_level=all on x86-64 AVX2 without VNNI (its QDQ selectors "
                  "fuse the chain; the fused kernel is the qlinear_conv / qlinear_matmul families' "
                  "int16_pair_saturation; measured here on a model's chains, docs/from_model.md)"),
    Fault("chains.matmul_integer_a_zero_point_ignored", "MatMulInteger / DynamicQuantizeMatMul leaves "
          "a_zero_point out", matmul_integer_a_zero_point_ignored,
          applies=_pattern(*_MMI),
          seen_in="not seen; modelled as a fused DynamicQuantizeMatMul that takes a symmetric a (onnxruntime's "
                  "fusion requires a_zero_point to be DynamicQuantizeLinear's output)"),
    Fault("chains.dql_min_max_skip_tail8", "the DynamicQuantizeLinear step (or a fused DynamicQuantizeMatMul) "
          "reduces min / max over whole 8-element vectors only, leaving out the last n % 8 elements",
          dql_min_max_skip_tail8, applies=_pattern(*_DQL),
          equivalent=lambda p: None if p.get("pattern") == "dql_matmul_tail" else
          "a has 4 x 8 = 32 elements: every 8-element vector is whole, the reduction reads them all",
          seen_in="not seen; modelled as the dynamic_quantize_linear family's min_max_skip_tail8 inside a fused "
                  "kernel (issue 21's vector-tail axis)"),
    Fault("chains.e5m2_carry_nan", "Casts to float8e5m2 with saturate=0 give NaN where the rounding carries past "
          "57344 (61440 <= |x| < 65536) instead of Inf", e5m2_carry_nan, applies=_to_e5m2_nosat,
          seen_in="onnxruntime 1.32.0 (measured here: float -> float8e5m2 -> float, 61440 -> NaN, fed and folded; "
                  "its Float8E5M2 constructor's rounding overflow branch sets 0x7F)"),
    Fault("chains.float8_bitwise_normal_only", "Casts float32 <-> float8e4m3fn / float8e5m2 by bit arithmetic for "
          "normal numbers only: zeros and subnormals flush to +0, a large exponent or a rounding carry wraps into the "
          "sign bit, Inf / NaN encode their exponent; decoding reads every encoding as normal (0x00 is 2**-bias)",
          float8_bitwise_normal_only,
          applies=lambda p: p.get("pattern") == "cast" and any(t in _F8_TYPES for t in p.get("types", [])),
          seen_in="TVM 0.27.0 (measured here: float -> float8e4m3fn -> float, 500 -> -0.0078125, inf -> 1.0, "
                  "-0.0 -> 0.0078125; float8e5m2 0x7C -> 65536)"),
    Fault("chains.float_to_int64_via_int32_saturating", "Cast float -> int64 converts through int32 with "
          "saturation: beyond int32 it gives 2147483647 / -2147483648", _float_to_int64_via_int32(True),
          applies=_float_to_int64,
          seen_in="OpenVINO 2026.4.1 constant folding (measured here: int64 -> float -> int64 constant, 2**31 -> "
                  "2147483647)"),
    Fault("chains.float_to_int64_via_int32_indefinite", "Cast float -> int64 converts with a 32-bit instruction: "
          "beyond int32 it gives the integer indefinite -2147483648", _float_to_int64_via_int32(False),
          applies=_float_to_int64,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: int64 -> float -> int64 fed, 2**31 -> -2147483648)"),
    Fault("chains.dql_scale_reciprocal_y_from_range", "the DynamicQuantizeLinear step computes y_scale as range * "
          "float32(1 / 255) and y from float32(x * 255) / range", dql_scale_reciprocal_y_from_range,
          applies=_pattern(*_DQL), equivalent=qop_faults.exact_a_scale,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: a_scale one ulp off in DynamicQuantizeLinear -> "
                  "MatMulInteger, "
                  "fed and initializers; the dynamic_quantize_linear family's fault of that name)"),
) + qop_faults.FAULTS


def group_key(meta: dict) -> str:
    """One group per case: each chain and each inputs mode (fed, initializers, constant) is another path through
    a runtime (the kernels, a fuser, the constant folder), so each must kill its faults itself."""
    p = meta.get("params") or {}
    what = "->".join(p["types"]) if "types" in p else p.get("zero_point_type", "")
    sat = "" if p.get("saturate") is None else f"/saturate={int(p['saturate'])}"
    variant = f"/{p['variant']}" if p.get("variant") else ""
    return f"{p.get('pattern')}{variant}/{what}{sat}/{p.get('inputs')}".replace("//", "/")


def _lookup_with(swaps: dict):
    def lookup(domain: str, op: str):
        return swaps.get(("" if domain == "ai.onnx" else domain, op)) or (
            _identity if op == "Identity" and domain in ("", "ai.onnx") else reference_lookup(domain, op))
    return lookup


def run(fault: Fault, model: onnx.ModelProto, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The outputs of the model as the fault rewrites it, node by node on the references."""
    rewritten, swaps = fault.fn(model)
    out = _Outputs(run_program(compile_model(rewritten, _lookup_with(swaps)), inputs))
    out.inputs = dot_bound.operands(model, inputs)  # a "range" comparison reads them (killed)
    return out


class _Outputs(list):
    """A fault's outputs with the data set's operands."""
    inputs: list


def killed(fault: Fault, meta: dict, expected: list, actual: list) -> bool:
    """Would the case fail the fault's outputs? Under a "range" spec (a model's DequantizeLinear -> Conv / MatMul ->
    QuantizeLinear, generator/reference/dq_op_q.py): some element outside what any float32 order gives; else any
    difference (faults.differs)."""
    compare = meta.get("compare") or {}
    types = [dtypes.from_numpy(np.asarray(y).dtype) for y in expected]
    operands = getattr(actual, "inputs", None)
    if compare.get("mode") != "range" or operands is None:
        return faults.differs(expected, actual, types, compare)
    if len(actual) != len(expected):
        return True
    from generator.reference import dq_op_q
    for y, z in zip(expected, actual):
        if np.shape(y) != np.shape(z) or np.asarray(y).dtype != np.asarray(z).dtype:
            return True
        if not dq_op_q.check(compare, operands, y, z).all():
            return True
    return False
