"""Fault models of the QLinear operators (generator/reference/qlinear_ops.py): plausible wrong kernels of
"dequantize -> float operator -> quantize", each a change to one step of the reference.

A fault's function takes (op, inputs in slot order, attrs) and returns Y. The requantization faults change the last
step, y = saturate(round_half_even(r / y_scale) + y_zero_point): ties away from zero, truncation, the zero point added
before rounding, no saturation (wrap modulo 2**8), truncation with wrapping (a float -> int8 conversion of a graph
compiler); the dequantization faults its first (a zero point ignored, int8 read as uint8); the rest one operator's
attribute or formula. A fault is killed where some element leaves the range the case's "range" comparison allows
(killed, as chains_faults.killed): a tie fault only where the float result is exact, so the family's "pow2" data
sets put exact ties at an odd output zero point. One group per case (its operator and attributes).
"""

from __future__ import annotations

import numpy as np
import onnx

from generator import dot_bound, dtypes
from generator.faults import Fault
from generator.reference import float_ops
from generator.reference import qlinear_ops as ref

_OMITTED = ""


def _full(attrs: dict, op: str) -> dict:
    return dict(ref.QOPS[op].attrs, **attrs)


def _exact_value(op: str, inputs: list, attrs: dict, zp_in: bool = True, uint8_for_int8: bool = False):
    """(r, y_scale, y_zero_point, out type): the float operator's exact value on the dequantized operands."""
    slots = ref.slots_of(op, len(inputs))
    if not zp_in or uint8_for_int8:
        inputs = list(inputs)
        for i, s in enumerate(slots):
            if inputs[i] is None or s.role == ref.OUT:
                continue
            if not zp_in and s.kind == "zp":
                inputs[i] = np.zeros_like(inputs[i])
            if uint8_for_int8 and s.kind in ("q", "zp") and inputs[i].dtype == np.int8:
                inputs[i] = (inputs[i].view(np.uint8).astype(np.int16) - 128).astype(np.int8)
    vals, scales, zps, out, full = ref.operands(op, inputs, attrs)
    r, _, _ = float_ops.evaluate(ref.QOPS[op].float_op, vals, scales, full)
    return np.where(np.isnan(r), 0.0, r), scales[ref.OUT], int(zps[ref.OUT]) if ref.OUT in zps else 0, out


def _requantized(q: np.ndarray, zp: int, to: dtypes.DType, saturate: bool = True) -> np.ndarray:
    v = q + zp
    if saturate:
        return np.clip(v, to.int_min, to.int_max).astype(to.np_dtype)
    return np.asarray(v, np.int64).astype(to.np_dtype)  # wraps modulo 2**8


def _rounded(op: str, x: np.ndarray, zp: int, to: dtypes.DType) -> np.ndarray:
    """The reference's requantization of x = r / y_scale: the zero point before the rounding or after it, as the
    operator's row reads its text (qlinear_ops.READING_FORMULA_ROUNDING / READING_ROUNDING)."""
    if ref.QOPS[op].zero_point_first:
        return np.clip(np.rint(x + zp), to.int_min, to.int_max).astype(to.np_dtype)
    return _requantized(np.rint(x), zp, to)


def _quantize_fault(how: str):
    """A requantization fault: how the exact r / y_scale becomes an integer (the zero point where the row puts it,
    but for the fault that moves it)."""
    def fn(op, inputs, attrs):
        r, ys, zp, to = _exact_value(op, inputs, attrs)
        first = ref.QOPS[op].zero_point_first
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            x = r / ys + (zp if first else 0)
        after = 0 if first else zp
        if how == "half_away":
            return _requantized(np.sign(x) * np.floor(np.abs(x) + 0.5), after, to)
        if how == "truncate":
            return _requantized(np.trunc(x), after, to)
        if how == "zero_point_swapped":  # the other order than the row's
            if first:
                return _requantized(np.rint(x - zp), zp, to)
            return np.clip(np.rint(x + zp), to.int_min, to.int_max).astype(to.np_dtype)
        if how == "wrap":
            return _requantized(np.rint(np.clip(x, -2.0**40, 2.0**40)), after, to, saturate=False)
        if how == "truncate_wrap":  # float -> int32 truncates, then the narrowing conversion keeps the low 8 bits
            return _requantized(np.trunc(np.clip(x + after, -2.0**40, 2.0**40)), 0, to, saturate=False)
        raise ValueError(how)
    return fn


def _convert_wraps_zero_point_saturates(op, inputs, attrs):
    """r / y_scale converted to T by truncation with wrap-around, then y_zero_point added in T with saturation (a
    lowering to a graph's Convert(Y / y_scale, T) and an integer Add)."""
    r, ys, zp, to = _exact_value(op, inputs, attrs)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        v = np.trunc(np.clip(r / ys, -2.0 ** 40, 2.0 ** 40)).astype(np.int64).astype(to.np_dtype).astype(np.int64)
    return np.clip(v + zp, to.int_min, to.int_max).astype(to.np_dtype)


def _leaky_as_maximum(op, inputs, attrs):
    """LeakyRelu as max(x, alpha * x): for x >= 0 that is x only while alpha <= 1; for x < 0 it is alpha * x
    whenever alpha <= 1 (and x for alpha > 1)."""
    r_pos, ys, zp, to = _exact_value(op, inputs, dict(attrs, alpha=1.0))
    alpha = float(np.float32(_full(attrs, op)["alpha"]))
    return _rounded(op, np.maximum(r_pos, alpha * r_pos) / ys, zp, to)


def _softmax_reciprocal_floored(wrap_int8: bool):
    """QLinearSoftmax requantized as y = rint(p * floor(1 / y_scale)) + y_zero_point: the reciprocal of y_scale
    floored to an integer; with wrap_int8, an int8 result clamped only above 255, then narrowed (wraps past 127)."""
    def fn(op, inputs, attrs):
        r, ys, zp, to = _exact_value(op, inputs, attrs)
        with np.errstate(divide="ignore"):
            q = np.rint(r * np.floor(np.float32(1) / np.float32(ys))) + zp
        if wrap_int8:
            return np.minimum(q, 255).astype(np.int64).astype(to.np_dtype)
        return np.clip(q, to.int_min, to.int_max).astype(to.np_dtype)
    return fn


def _dequantize_fault(zp_in: bool = True, uint8_for_int8: bool = False, zp_out: bool = True):
    def fn(op, inputs, attrs):
        r, ys, zp, to = _exact_value(op, inputs, attrs, zp_in, uint8_for_int8)
        return _rounded(op, r / ys, zp if zp_out else 0, to)
    return fn


def _with_attrs(change):
    """The reference on the node with its attributes changed (a kernel that misreads one)."""
    def fn(op, inputs, attrs):
        r, ys, zp, to = _exact_value(op, inputs, change(_full(attrs, op), inputs))
        return _rounded(op, r / ys, zp, to)
    return fn


def _swap_add_scales(op, inputs, attrs):
    x = list(inputs)
    x[1], x[4] = inputs[4], inputs[1]
    return _dequantize_fault()(op, x, attrs)


def _leaky_sign_of_q(op, inputs, attrs):
    """The negative branch chosen where q < 0 (the stored integer), not where q < zero_point."""
    r_pos, ys, zp, to = _exact_value(op, inputs, dict(attrs, alpha=1.0))
    alpha = float(np.float32(_full(attrs, op)["alpha"]))
    r = np.where(np.asarray(inputs[0]) < 0, alpha * r_pos, r_pos)
    return _rounded(op, r / ys, zp, to)


def _concat_raw(op, inputs, attrs):
    """The quantized tensors concatenated as they are, without requantization to Y's scale and zero point."""
    qs = [np.asarray(inputs[i]) for i in range(2, len(inputs), 3)]
    return np.concatenate(qs, axis=int(attrs["axis"]))


def _concat_first_scale(op, inputs, attrs):
    """Every tensor dequantized with the first tensor's scale and zero point."""
    x = list(inputs)
    for i in range(5, len(inputs), 3):
        x[i + 1], x[i + 2] = inputs[3], inputs[4]
    return _dequantize_fault()(op, x, attrs)


def _where_raw(op, inputs, attrs):
    return np.where(np.asarray(inputs[0], bool), inputs[1], inputs[4])


def _flip(name):
    return lambda a, inputs: dict(a, **{name: 1 - int(a.get(name, 0))})


def _same_swapped(a, inputs):
    swap = {"SAME_UPPER": "SAME_LOWER", "SAME_LOWER": "SAME_UPPER"}
    return dict(a, auto_pad=swap.get(a.get("auto_pad"), a.get("auto_pad")))


def _same_unclamped_pads(a: dict, shape: tuple) -> tuple[list[int], list[int]]:
    """SAME's pads from total = (ceil(size / stride) - 1) * stride + kernel - size without clamping at 0, split by C's
    truncating division (head total / 2 for SAME_UPPER, (total + 1) / 2 for SAME_LOWER): a negative head where the
    stride exceeds what the kernel covers (onnxruntime 1.32.0 measured: SAME_UPPER total -2 reads from row 1)."""
    k, n = list(a["kernel_shape"]), len(a["kernel_shape"])
    st = list(a.get("strides", [1] * n))
    begin, end = [], []
    for i in range(n):
        total = (-(-shape[i] // st[i]) - 1) * st[i] + k[i] - shape[i]
        head = int((total if a.get("auto_pad") == "SAME_UPPER" else total + 1) / 2)  # toward zero, as C divides
        begin.append(head)
        end.append(total - head)
    return begin, end


def _spatial(a: dict, inputs) -> tuple:
    x = np.shape(inputs[0])
    return tuple(x[1:-1] if a.get("channels_last") else x[2:])


def _same_pads_unclamped(a, inputs):
    begin, end = _same_unclamped_pads(a, _spatial(a, inputs))
    return {**{k: v for k, v in a.items() if k != "auto_pad"}, "auto_pad": "NOTSET", "pads": begin + end}


def _softmax_opset_swapped(a, inputs):
    return dict(a, opset=13 if int(a["opset"]) < 13 else 12)


def _alpha_default(a, inputs):
    return dict(a, alpha=float_ops.LEAKY_ALPHA_DEFAULT)


# --- where a fault can differ (group params: the case's) ---------------------------------------------------------

def _op(*ops):
    return lambda p: p.get("op") in ops


def _attrs(p: dict) -> dict:
    return _full(p.get("attrs") or {}, p["op"])


def _empty(p: dict) -> str | None:
    shapes = [list(s) for s in p.get("shapes") or []]
    if p.get("op") == "QLinearConcat":
        if shapes:
            axis = int(_attrs(p)["axis"]) % len(shapes[0])
            out = list(shapes[0])
            out[axis] = sum(s[axis] for s in shapes)
            if 0 in out:
                return "Y has no element"
        return None
    if any(0 in s for s in shapes):
        return "an input has no element: Y has none"
    return None


def _counts(p: dict) -> np.ndarray | None:
    """The divisor of each pooling window (None for an operator that does not pool)."""
    a, shape = _attrs(p), list(p["shapes"][0])
    if a.get("channels_last"):
        shape = [shape[0], shape[-1]] + shape[1:-1]
    if p["op"] == "QLinearGlobalAveragePool":
        return np.array([float(np.prod(shape[2:]))])
    if p["op"] == "QLinearAveragePool":
        return float_ops.average_pool(np.ones(shape), a)[1]
    return None


def _out_zp_omitted(p: dict) -> str | None:
    if any(n.lower().endswith("zero_point") and n[0] in "CYZy" for n in p.get("omitted", [])):
        return "the output's zero point is omitted (0): added before or after rounding, and ignored, it is the same"
    return _empty(p)


def _in_zp_omitted(p: dict) -> str | None:
    if p.get("op") == "QLinearSoftmax":
        return ("Softmax is shift-invariant: exp(x - c) / sum exp(x - c) = exp(x) / sum exp(x), so X's zero point "
                "cancels")
    omitted = p.get("omitted", [])
    slots = ref.slots_of(p["op"], 2 + 3 * len(p.get("shapes", [])) if p["op"] == "QLinearConcat" else 0)
    ins = [s.name for s in slots if s.kind == "zp" and s.role != ref.OUT]
    if ins and all(n in omitted for n in ins):
        return "every input zero point is omitted (0)"
    return _empty(p)


def _transcendental(p: dict) -> str | None:
    """Where no element of the configuration is exact (READING_FLOAT32), a fault that differs only at exact ties
    is never told apart by the comparison."""
    if p.get("op") in ("QLinearSigmoid", "QLinearSoftmax"):
        return ("the float function is transcendental: READING_FLOAT32 allows either neighbour of a rounding boundary "
                "within its bound, so how a tie rounds is never judged")
    counts = _counts(p)
    if counts is not None and counts.size:
        m, _ = np.frexp(counts)
        if not (m == 0.5).any():
            return ("no window divides by a power of two: no mean is exact under READING_FLOAT32, so how a tie "
                    "rounds is never judged")
    return _empty(p)


def _zp_first_equivalent(p: dict) -> str | None:
    return _transcendental(p) or _out_zp_omitted(p)


def _has_pads(p: dict) -> bool:
    a = _attrs(p)
    if p.get("op") != "QLinearAveragePool":
        return False
    shape = p["shapes"][0]
    spatial = shape[1:-1] if a.get("channels_last") else shape[2:]
    begin, end, _ = float_ops.pool_pads(a, tuple(spatial))
    return any(begin) or any(end)


def _same_negative(p: dict) -> bool:
    a = _attrs(p)
    if p.get("op") != "QLinearAveragePool" or a.get("auto_pad") not in ("SAME_UPPER", "SAME_LOWER"):
        return False
    shape = p["shapes"][0]
    spatial = shape[1:-1] if a.get("channels_last") else shape[2:]
    begin, _ = _same_unclamped_pads(a, tuple(spatial))
    return min(begin) < 0  # a negative head shifts the windows (a negative tail can only shorten the last)


def _ceil_differs(p: dict) -> bool:
    a = _attrs(p)
    if p.get("op") != "QLinearAveragePool" or not a.get("ceil_mode"):
        return False
    shape = p["shapes"][0]
    spatial = shape[1:-1] if a.get("channels_last") else shape[2:]
    return float_ops.pool_pads(a, tuple(spatial))[2] != float_ops.pool_pads(dict(a, ceil_mode=0), tuple(spatial))[2]


def _same_odd(p: dict) -> bool:
    a = _attrs(p)
    if p.get("op") != "QLinearAveragePool" or a.get("auto_pad") not in ("SAME_UPPER", "SAME_LOWER"):
        return False
    shape = p["shapes"][0]
    spatial = shape[1:-1] if a.get("channels_last") else shape[2:]
    begin, end, _ = float_ops.pool_pads(a, tuple(spatial))
    return begin != end


def _softmax_coerced_differs(p: dict) -> bool:
    if p.get("op") != "QLinearSoftmax":
        return False
    a = _attrs(p)
    rank = len(p["shapes"][0])
    _, axis = float_ops.softmax_axis(a, rank)
    return axis != rank - 1 and rank > 1


def _leaky_alpha_set(p: dict) -> bool:
    return p.get("op") == "QLinearLeakyRelu" and float(np.float32(_attrs(p)["alpha"])) != \
        float(np.float32(float_ops.LEAKY_ALPHA_DEFAULT))


def _concat_many(p: dict) -> bool:
    return p.get("op") == "QLinearConcat" and len(p.get("shapes", [])) > 1


FAULTS = (
    Fault("qlinear_ops.round_half_away", "requantizes r / y_scale rounding ties away from zero",
          _quantize_fault("half_away"), equivalent=_transcendental,
          seen_in="not seen; modelled as C's round() / std::round (half away from zero) used for the requantization"),
    Fault("qlinear_ops.truncate", "requantizes r / y_scale truncating toward zero", _quantize_fault("truncate"),
          equivalent=_empty,
          seen_in="onnxruntime 1.32.0 CPU QLinearSoftmax (measured here: 182.66 -> 182, 95.61 -> 95; its uint32 "
                  "fixed-point exp table)"),
    Fault("qlinear_ops.zero_point_order_swapped", "adds y_zero_point on the other side of the rounding than the "
          "reading: before it (QuantizeLinear's order read as the formula's), or after it for QLinearAdd / QLinearMul "
          "(a tie at an odd zero point rounds the other way)", _quantize_fault("zero_point_swapped"),
          equivalent=_zp_first_equivalent,
          seen_in="onnxruntime 1.32.0 CPU QLinearAveragePool (the zero point added before the rounding, as its "
                  "QLinearAdd / QLinearMul do by their formula); IREE 3.13.0 QLinearAdd / QLinearMul (after it, "
                  "QuantizeLinear's order; both measured here)"),
    Fault("qlinear_ops.no_saturation", "does not saturate: a value beyond T wraps modulo 2**8",
          _quantize_fault("wrap"), equivalent=_empty,
          seen_in="not seen; modelled as a static_cast to the 8-bit type without clamping first"),
    Fault("qlinear_ops.truncate_and_wrap", "converts r / y_scale + y_zero_point to T as a graph's float -> int "
          "Convert does: truncation toward zero, then the low 8 bits", _quantize_fault("truncate_wrap"),
          equivalent=_empty,
          seen_in="OpenVINO 2026.4.1 ONNX frontend, com.microsoft QLinearAdd / QLinearMul / QLinearSigmoid / "
                  "QLinearConcat / QLinearWhere (measured here: 17.4 -> 16 would be truncation; 127.6 -> -128)"),
    Fault("qlinear_ops.convert_wraps_zero_point_saturates", "r / y_scale converted to T truncating and wrapping, "
          "then y_zero_point added in T, saturating", _convert_wraps_zero_point_saturates, equivalent=_empty,
          seen_in="OpenVINO 2026.4.1 ONNX frontend, QLinearSigmoid / QLinearLeakyRelu / QLinearAveragePool / "
                  "QLinearWhere (its translation: Convert(Y / y_scale, T), then Add(y_zero_point) in T; the CPU "
                  "plugin's Convert to uint8 / int8 truncates and wraps, its Add saturates: measured here)"),
    Fault("qlinear_ops.input_zero_point_ignored", "dequantizes the inputs as q * scale, without their zero points",
          _dequantize_fault(zp_in=False), equivalent=_in_zp_omitted,
          seen_in="not seen; modelled as a kernel written for symmetric (zero point 0) inputs"),
    Fault("qlinear_ops.output_zero_point_ignored", "quantizes without adding y_zero_point",
          _dequantize_fault(zp_out=False), equivalent=_out_zp_omitted,
          seen_in="not seen; modelled as a kernel written for a symmetric (zero point 0) output"),
    Fault("qlinear_ops.int8_read_as_uint8", "reads int8 tensors and zero points as uint8 shifted by 128 (a uint8 "
          "kernel given int8 data)", _dequantize_fault(uint8_for_int8=True),
          applies=lambda p: p.get("t") == "int8", equivalent=_empty,
          seen_in="not seen; modelled as a uint8-only kernel registered for int8 too"),
    Fault("qlinear_ops.add_scales_swapped", "QLinearAdd: A dequantized with B_scale and B with A_scale",
          _swap_add_scales, applies=_op("QLinearAdd"), equivalent=_empty,
          seen_in="not seen; modelled as A's and B's scale arguments passed in the wrong order"),
    Fault("qlinear_ops.leaky_relu_alpha_default", "QLinearLeakyRelu: the alpha attribute ignored (0.01 used)",
          _with_attrs(_alpha_default), applies=_leaky_alpha_set,
          seen_in="not seen; modelled as the alpha attribute not read (the default kept)"),
    Fault("qlinear_ops.leaky_relu_absent_alpha_zero", "QLinearLeakyRelu without an alpha attribute as alpha 0 (a "
          "Relu), not the schema's default 0.01", _with_attrs(lambda a, i: dict(a, alpha=0.0)),
          applies=lambda p: p.get("op") == "QLinearLeakyRelu" and "alpha" not in (p.get("attrs") or {}),
          seen_in="IREE 3.13.0 (its ONNX importer, measured here: every negative input gives y_zero_point)"),
    Fault("qlinear_ops.leaky_relu_as_maximum", "QLinearLeakyRelu as max(x, alpha * x): alpha * x for x > 0 where "
          "alpha > 1 (right for alpha <= 1)", _leaky_as_maximum,
          applies=lambda p: p.get("op") == "QLinearLeakyRelu" and float(np.float32(_attrs(p)["alpha"])) > 1,
          seen_in="OpenVINO 2026.4.1 ONNX frontend (its translation: Maximum(x, Multiply(x, alpha)))"),
    Fault("qlinear_ops.leaky_relu_sign_of_q", "QLinearLeakyRelu: alpha applied where the stored integer is below 0, "
          "not where the dequantized value is", _leaky_sign_of_q,
          applies=lambda p: p.get("op") == "QLinearLeakyRelu" and "X_zero_point" not in p.get("omitted", [])
          and float(np.float32(_attrs(p)["alpha"])) != 1.0,
          seen_in="not seen; modelled as the branch taken on the stored integer's sign"),
    Fault("qlinear_ops.softmax_opset_swapped", "QLinearSoftmax: opset < 13 taken as one axis (13's Softmax), or 13 "
          "as the input coerced to 2-D", _with_attrs(_softmax_opset_swapped), applies=_softmax_coerced_differs,
          seen_in="not seen; modelled as the opset attribute ignored or inverted"),
    Fault("qlinear_ops.softmax_reciprocal_floored", "QLinearSoftmax: the probabilities scaled by floor(1 / y_scale) "
          "(an integer) instead of divided by y_scale", _softmax_reciprocal_floored(False),
          applies=_op("QLinearSoftmax"), equivalent=_empty,
          seen_in="onnxruntime 1.32.0 CPU, uint8 (its kernel: Y_scale = floor(1.0F / y_scale), then "
                  "nearbyint(exp_table * Y_scale / sum); measured here)"),
    Fault("qlinear_ops.softmax_reciprocal_floored_int8_wraps", "QLinearSoftmax int8: floor(1 / y_scale) as above, "
          "and the result clamped only above 255 before its narrowing to int8 (beyond 127 it wraps)",
          _softmax_reciprocal_floored(True), applies=lambda p: p.get("op") == "QLinearSoftmax" and p.get("t") == "int8",
          equivalent=_empty,
          seen_in="onnxruntime 1.32.0 CPU, int8 (its kernel: vq > 255 ? 255 : vq, cast to int8; a probability of 1 at "
                  "y_scale 1/256, y_zero_point -128 gives -128; measured here)"),
    Fault("qlinear_ops.pool_count_include_pad_flipped", "QLinearAveragePool: count_include_pad read the other way",
          _with_attrs(_flip("count_include_pad")), applies=_has_pads,
          seen_in="not seen; modelled as the count_include_pad flag inverted"),
    Fault("qlinear_ops.pool_ceil_mode_ignored", "QLinearAveragePool: ceil_mode ignored (floor)",
          _with_attrs(lambda a, i: dict(a, ceil_mode=0)), applies=_ceil_differs,
          seen_in="not seen; modelled as the output shape computed with floor always"),
    Fault("qlinear_ops.pool_same_swapped", "QLinearAveragePool: SAME_UPPER and SAME_LOWER swapped (the odd pad at "
          "the other end)", _with_attrs(_same_swapped), applies=_same_odd,
          seen_in="not seen; modelled as SAME_UPPER and SAME_LOWER mapped the wrong way round"),
    Fault("qlinear_ops.pool_same_pads_unclamped", "QLinearAveragePool: SAME's total padding not clamped at 0 where the "
          "stride exceeds the kernel: a negative pad shifts every window", _with_attrs(_same_pads_unclamped),
          applies=_same_negative,
          seen_in="onnxruntime 1.32.0 CPU (measured here, found by opconform hunt: SAME_UPPER, kernel 1, stride 3 over "
                  "3 rows reads row 1; its float AveragePool refuses the same attributes: 'padding values must be "
                  "non-negative')"),
    Fault("qlinear_ops.channels_last_ignored", "QLinearAveragePool / QLinearGlobalAveragePool: channels_last "
          "ignored (the input read as N x C x D1 ..)", _with_attrs(lambda a, i: dict(a, channels_last=0)),
          applies=lambda p: p.get("op") in ("QLinearAveragePool", "QLinearGlobalAveragePool")
          and bool(_attrs(p).get("channels_last")),
          seen_in="not seen; modelled as the channels_last attribute not read"),
    Fault("qlinear_ops.concat_raw_copy", "QLinearConcat: the quantized tensors copied without requantization",
          _concat_raw, applies=_op("QLinearConcat"), equivalent=_empty,
          seen_in="not seen; modelled as the equal-parameters fast path taken without checking them"),
    Fault("qlinear_ops.concat_first_scale", "QLinearConcat: every tensor dequantized with the first one's scale and "
          "zero point", _concat_first_scale, applies=_concat_many,
          seen_in="not seen; modelled as a kernel that reads one (scale, zero point) for all its inputs"),
    Fault("qlinear_ops.where_raw_copy", "QLinearWhere: X's or Y's quantized values copied without requantization",
          _where_raw, applies=_op("QLinearWhere"), equivalent=_empty,
          seen_in="not seen; modelled as a select on the integers without requantization"),
)


def group_key(meta: dict) -> str:
    """One group per case: each configuration (operator, T, shapes, attributes) must kill its faults itself."""
    p = meta.get("params") or {}
    return f"{p.get('op')}/{p.get('what')}"


def _slot_inputs(model: onnx.ModelProto, inputs: list) -> tuple[str, list, dict]:
    """(op, the node's inputs in slot order with None for an omitted one, its attributes) of a one-node model."""
    node = model.graph.node[0]
    held = dot_bound.operands(model, inputs)  # the fed inputs, then the initializers (a model's constants)
    by_name = dict(zip(held.names, held))
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in attrs.items()}
    n = len(ref.slots_of(node.op_type, len(node.input)))
    names = list(node.input) + [_OMITTED] * (n - len(node.input))
    return node.op_type, [by_name.get(x) if x else None for x in names], attrs


class _Outputs(list):
    """A fault's outputs with the data set's operands (a "range" comparison reads them)."""
    inputs: list


def run(fault: Fault, model: onnx.ModelProto, inputs: list, meta: dict) -> list:
    op, slot_inputs, attrs = _slot_inputs(model, inputs)
    out = _Outputs([np.asarray(fault.fn(op, slot_inputs, attrs))])
    out.inputs = dot_bound.operands(model, inputs)
    return out


def killed(fault: Fault, meta: dict, expected: list, actual: list) -> bool:
    """Some element outside what the case's "range" comparison allows (generator/reference/dq_op_q.py)."""
    from generator.reference import chains_faults
    return chains_faults.killed(fault, meta, expected, actual)


__all__ = ["FAULTS", "group_key", "killed", "run"]
