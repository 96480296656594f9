"""Fault models of ONNX QLinearConv-10: plausible wrong implementations, each the reference with one
deviation (docs/design.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module
holds).

Every fault has the signature of generator.reference.qlinear_conv.qlinear_conv_node and is built from the
reference's own pieces (resolve_padding, accumulate, multiplier, requantize), changed in one place:
  requantization   (generator/reference/requantize_variants.py, shared with the other requantizing operators)
                   multiplier and product in float32 (onnxruntime's MLAS) or in float64 instead of the
                   exact value; a Q31 fixed-point multiplier (gemmlowp / TFLite); y_zero_point added before rounding (onnx.reference); ties away from zero;
                   saturation to the type before adding y_zero_point (the sum then wraps)
  per-channel      w_scale / w_zero_point taken along w's axis 1 (input channels) where it has
                   C / group == M elements (OpenVINO's ONNX frontend dequantizes w with axis 1); only
                   w_scale[0] used for every output channel
  geometry         SAME_UPPER / SAME_LOWER's odd padding pixel on the wrong side; dilations ignored by the
                   kernel (the output shape still theirs); SAME's total padding from the undilated kernel,
                   a negative total not clamped at 0 (tinygrad)
  accumulation     raw u8 x s8 products summed in pairs with int16 saturation (VPMADDUBSW, onnxruntime on
                   x86 without VNNI; x uint8, w int8 only); B ignored; conv + B computed modulo 2**32 (int32 wraparound)
  vector tails     the output loops' scalar remainders (generator/axes.py): the last Wo % W output positions of
                   each row (W = 4, 8, 16; all of them when Wo < W) or the last M % 8 output channels rounded half
                   away from zero; the last Wo % 8 positions converted to the output type without saturation
  attributes       a written auto_pad of any value padded as SAME_UPPER (its presence read, not its value: the
                   explicit-defaults axis writes auto_pad="NOTSET")
  refusals         a 1-D convolution refused (tinygrad)
  rank 5           per-channel w_zero_point / w_scale of a 3-D convolution reshaped as for a 2-D one (tinygrad):
                   w_zero_point along w's input channels, w_scale along the output's depth; refused where these
                   do not broadcast

Groups (group_key): a configuration class of a case, from its case.json "params":

    "<padding> <dilation> <w quantization> <bias>"
      padding         explicit (auto_pad NOTSET or VALID) | same_upper | same_lower
      dilation        dilated (some dilation > 1) | undilated
      w quantization  per_channel (w_scale / w_zero_point of M elements) | per_tensor
      bias            bias | no_bias

e.g. "same_lower undilated per_channel bias". These are exactly the parameters that decide whether a fault
of this catalogue can differ from the reference at all (the SAME split needs SAME, ignoring dilations needs
one > 1, the per-channel faults need M scales, ignoring B needs a B); everything else (spatial rank, strides,
group, the type triple, shapes) is data of the class, where every fault that can differ in the class can
differ. 24 classes; the catalogue's cases fall in 10 of them, the random configurations in more, and every
class has a witness case (generator/witness/qlinear_conv.py).

`equivalent(params)` gives the proof where a fault cannot differ in a class: the SAME split without SAME,
dilations ignored without dilations, SAME padding from the undilated kernel without SAME, per-channel faults with
one scale, B ignored without B, and the int32 wraparound everywhere (see _WRAP_PROOF). The spatial rank is data of
every class: the 1-D refusal, the per-channel values of a 3-D convolution and the unclamped SAME total (without
dilations it differs only where a stride exceeds the kernel) have witness configurations of their own
(generator/witness/qlinear_conv.py), and so has the pair saturation (x uint8, w int8) in the classes whose witness
configuration has other types.
"""

from __future__ import annotations

from math import isfinite, prod

import numpy as np

from generator import dtypes
from generator.faults import Fault, Refusal
from generator.reference import qlinear_conv as ref
from generator.reference.requantize_variants import REQUANT_FAULTS, _requantize, _rne_ratio, _round_variant

_SAME = ("SAME_UPPER", "SAME_LOWER")
TAIL_WIDTHS = (4, 8, 16)  # int32 / float32 lanes of SSE / NEON, AVX2, AVX-512
_NOT_SEEN = "not seen; modelled as "


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def _parts(p: dict) -> tuple[str, bool, bool, bool]:
    """(padding, dilated, per_channel, bias) of a case's params."""
    auto_pad = p.get("auto_pad", "NOTSET")
    padding = auto_pad.lower() if auto_pad in _SAME else "explicit"
    dilated = any(int(d) > 1 for d in p.get("dilations") or [])
    per_channel = p.get("per_channel", "no") not in ("no", None)
    bias = p.get("bias", "absent") not in ("absent", None)
    return padding, dilated, per_channel, bias


def key_of(padding: str, dilated: bool, per_channel: bool, bias: bool) -> str:
    return " ".join([padding, "dilated" if dilated else "undilated", "per_channel" if per_channel else "per_tensor",
                     "bias" if bias else "no_bias"])


def group_key(meta: dict) -> str:
    """The configuration class of a case (module docstring)."""
    return key_of(*_parts(meta.get("params") or {}))


def all_groups() -> list[tuple[str, bool, bool, bool]]:
    """Every class: (padding, dilated, per_channel, bias)."""
    return [(pad, dil, pc, b) for pad in ("explicit", "same_upper", "same_lower") for dil in (False, True)
            for pc in (False, True) for b in (False, True)]


# ---------------------------------------------------------------------------------------
# the reference with one deviation
# ---------------------------------------------------------------------------------------
def _ints(v, n: int, default: int) -> list[int]:
    return [default] * n if v is None else [int(i) for i in v]


def _attr(attrs: dict, name: str, default=None):
    v = attrs.get(name, default)
    return v.decode() if isinstance(v, bytes) else v


def int16_pairs(x: np.ndarray, x_zero_point: int, w: np.ndarray, w_zero_point: np.ndarray, group: int,
                begin: list[int], end: list[int], out: list[int], strides: list[int],
                dilations: list[int]) -> np.ndarray:
    """acc as an x86 VPMADDUBSW kernel computes it: the raw products x * w of each group's sum, taken in
    NHWC im2col order (kernel offset outer, input channel inner), added in adjacent pairs (2j, 2j + 1 of that
    order) with int16 saturation, the pair sums added in int32; the zero points applied after, exactly:
        acc = sum_pairs sat16(a0 b0 + a1 b1) - w_zp * sum a - x_zp * sum b + K * x_zp * w_zp
    (padded positions hold x_zero_point). Depthwise groups (one input and one output channel each) take an
    exact kernel, as onnxruntime's MlasConvDepthwise does. onnxruntime's QLinearConv::Compute transposes x to NHWC,
    im2cols it in that order (a pointwise conv reads x in place: K = C) and runs MlasGemm on [positions, K] x [K, M]
    (ReorderFilter lays w out as kernel offset, input channel, output channel), so the GEMM's pairs of K indices
    2j, 2j + 1 are these; its symmetric path (MlasConvSym: a constant w, every w_zero_point 0) needs C % 4 == 0,
    where packing channels by 4 per kernel offset pairs the same products (MlasConvSymKernelAvx2), and its depthwise
    kernel widens to 32 bits first (exact)."""
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    kernel, g = w.shape[2:], group
    mg, nd = m // g, len(kernel)
    wz = np.broadcast_to(np.asarray(w_zero_point, dtype=np.int64).reshape(-1), (m,))
    padded = np.full((n, c) + tuple(i + b + e for i, b, e in zip(x.shape[2:], begin, end)), x_zero_point, np.int64)
    padded[(slice(None), slice(None)) + tuple(slice(b, b + i) for b, i in zip(begin, x.shape[2:]))] = x
    sp = padded.strides[2:]
    windows = np.lib.stride_tricks.as_strided(  # [n, channel, *kernel offset, *output position]
        padded, (n, c) + tuple(kernel) + tuple(out),
        padded.strides[:2] + tuple(t * d for t, d in zip(sp, dilations)) + tuple(t * s for t, s in zip(sp, strides)),
        writeable=False)
    positions = prod(out)
    # a[n, group, K, position] with K = (*kernel offset, channel): channels innermost
    a = np.moveaxis(windows.reshape((n, g, cg) + tuple(kernel) + (positions,)), 2, 2 + nd)
    a = a.reshape(n, g, -1, positions)
    b = np.moveaxis(w.astype(np.int64), 1, 1 + nd).reshape(g, mg, -1)  # [group, m in group, K]
    k = a.shape[2]
    exact = cg == 1 and mg == 1
    prods = a[:, :, None, :, :] * b[None, :, :, :, None]  # [n, group, m in group, K, position]
    if not exact:
        if k % 2:
            prods = np.concatenate([prods, np.zeros(prods.shape[:3] + (1,) + prods.shape[4:], np.int64)], axis=3)
        prods = np.clip(prods[:, :, :, 0::2] + prods[:, :, :, 1::2], -(2**15), 2**15 - 1)
    raw = prods.sum(axis=3)  # [n, group, m in group, position]
    sum_a = a.sum(axis=2)[:, :, None, :]
    sum_b = b.sum(axis=2)[None, :, :, None]
    zb = wz.reshape(1, g, mg, 1)
    acc = raw - zb * sum_a - x_zero_point * sum_b + k * x_zero_point * zb
    return acc.reshape((n, m) + tuple(out))


def _conv(inputs: list[np.ndarray], attrs: dict, *, requant: str = "exact", scale_axis: str = "output",
          same_swapped: bool = False, dilation_ignored: bool = False, bias_ignored: bool = False,
          wrap32: bool = False, pairs16: bool = False, tail: tuple | None = None,
          auto_pad_presence: bool = False, same_undilated: bool = False,
          one_d_refused: bool = False, per_channel_as_4d: bool = False) -> list[np.ndarray]:
    """The reference QLinearConv (generator.reference.qlinear_conv.qlinear_conv) with the given deviation.
    Shape checks are the reference's (a fault accepts no more models than the spec does)."""
    if len(inputs) not in (8, 9):
        raise ValueError(f"QLinearConv takes 8 or 9 inputs, got {len(inputs)}")
    x, xs, xz, w, ws, wz, ys, yz = (np.asarray(v) for v in inputs[:8])
    b = None if len(inputs) < 9 or inputs[8] is None else np.asarray(inputs[8])
    y_type = dtypes.from_numpy(yz.dtype)
    ws = np.asarray(ws, dtype=np.float32).reshape(-1)
    wz = wz.reshape(-1)
    group = int(attrs.get("group", 1))
    ref.check_shapes(x.shape, w.shape, group, ws.size, wz.size, None if b is None else b.shape,
                     attrs.get("kernel_shape"), {"x_scale": xs.size, "x_zero_point": xz.size, "y_scale": ys.size,
                                                 "y_zero_point": yz.size})
    if one_d_refused and x.ndim == 3:
        raise Refusal("a 1-D convolution (x of rank 3)")
    # tinygrad's reshapes for a 4-D w and output, (-1, 1, 1, 1) and (1, -1, 1, 1), on a 3-D convolution's rank 5:
    # w_zero_point lines up on w's axis 1 (input channels), w_scale on the output's axis 2 (depth); where
    # C / group is 1 the zero points broadcast w to M input channels, which the convolution then refuses
    as_4d = per_channel_as_4d and x.ndim == 5
    if as_4d and wz.size > 1:
        if wz.size != w.shape[1]:
            raise Refusal(f"w_zero_point of {wz.size} elements on w of shape {w.shape}: no broadcast on axis 1")
        w = w.astype(np.int16) - wz.astype(np.int16).reshape(1, -1, 1, 1, 1)
        wz = np.zeros(1, dtype=np.int16)
    kernel = w.shape[2:]
    nd = len(kernel)
    strides, dilations = _ints(attrs.get("strides"), nd, 1), _ints(attrs.get("dilations"), nd, 1)
    auto_pad = _attr(attrs, "auto_pad", "NOTSET")
    begin, end, out = ref.resolve_padding(x.shape[2:], kernel, strides, dilations, auto_pad, attrs.get("pads"))
    if auto_pad_presence and "auto_pad" in attrs:  # the attribute's presence read, not its value
        auto_pad = "SAME_UPPER"
        begin, end, out = ref.resolve_padding(x.shape[2:], kernel, strides, dilations, auto_pad, None)
    if same_swapped and auto_pad in _SAME:  # the odd pixel on the other side, same output shape
        other = _SAME[1 - _SAME.index(auto_pad)]
        begin, end, _ = ref.resolve_padding(x.shape[2:], kernel, strides, dilations, other, None)
    if same_undilated and auto_pad in _SAME:  # the total from the undilated kernel, unclamped, split as the spec
        total = [(-(-i // s) - 1) * s + k - i for i, s, k in zip(x.shape[2:], strides, kernel)]
        begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        end = [t - b_ for t, b_ in zip(total, begin)]
        # a negative pad crops the input at that end
        x = x[(slice(None), slice(None)) + tuple(slice(-min(b_, 0), i + min(e_, 0))
                                                 for b_, e_, i in zip(begin, end, x.shape[2:]))]
        begin, end = [max(b_, 0) for b_ in begin], [max(e_, 0) for e_ in end]
        extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        out = [max(0, (i + b_ + e_ - t) // s + 1)
               for i, b_, e_, t, s in zip(x.shape[2:], begin, end, extent, strides)]
    if as_4d and ws.size > 1 and out[0] not in (1, ws.size):
        raise Refusal(f"w_scale of {ws.size} elements on an output of depth {out[0]}: no broadcast on axis 2")
    taps = [1] * nd if dilation_ignored else dilations
    m = w.shape[0]
    shape = (x.shape[0], m) + tuple(out)
    xs_, ys_ = float(xs.reshape(-1)[0]), float(ys.reshape(-1)[0])
    if not all(v > 0 and isfinite(v) for v in [xs_, ys_] + ws.tolist()):
        return [np.zeros(shape, dtype=y_type.np_dtype)]  # undefined: the reference's placeholder
    xz_, yz_ = int(xz.reshape(-1)[0]), int(yz.reshape(-1)[0])
    if scale_axis == "input" and max(ws.size, wz.size) > 1 and max(ws.size, wz.size) != w.shape[1]:
        # DequantizeLinear of w on axis 1: its scale must have C / group elements
        raise Refusal(f"{max(ws.size, wz.size)} per-channel elements on w's axis 1 of {w.shape[1]}")
    if scale_axis == "input" and ws.size > 1 and ws.size == w.shape[1]:
        return [_input_axis(x, xz_, w, wz, ws, b, group, begin, end, out, strides, taps, xs_, ys_, yz_, y_type,
                            requant)]
    acc, bound = ref.accumulate(x, xz_, w, wz, group, begin, end, out, strides, taps)
    if pairs16 and x.dtype == np.uint8 and w.dtype == np.int8:  # VPMADDUBSW multiplies u8 by s8; U8U8 is exact
        acc = int16_pairs(x, xz_, w, wz, group, begin, end, out, strides, taps)
        bound = max(bound, int(np.abs(acc).max(initial=0)))
    if b is not None and not bias_ignored:
        acc = acc.astype(np.float64) + b.astype(np.float64).reshape((1, m) + (1,) * nd)
        bound += int(np.abs(b.astype(np.int64)).max()) if b.size else 0
    if bound > ref.INT32_MAX:
        a = acc.astype(np.int64)
        if wrap32:
            acc = (a + 2**31) % 2**32 - 2**31
        else:  # the reference's placeholder where conv + B leaves int32 (undefined)
            acc = np.where((a < ref.INT32_MIN) | (a > ref.INT32_MAX), 0, a)
        bound = 2**31
    scales = [float(ws[0])] if scale_axis == "first" else ws.tolist()
    if as_4d and ws.size > 1:  # scale w_scale[d] at depth d (a depth of 1 broadcast to M: y of shape N, M, M, ...)
        acc = np.broadcast_to(acc, acc.shape[:2] + (ws.size,) + acc.shape[3:])
        return [np.swapaxes(_requantize(np.ascontiguousarray(np.swapaxes(acc, 1, 2)), bound, xs_, scales, ys_, yz_,
                                        y_type, requant), 1, 2).copy()]
    y = _requantize(acc, bound, xs_, scales, ys_, yz_, y_type, requant)
    if tail is not None:  # the scalar remainder of a vectorized output loop computes otherwise
        axis, width, how = tail
        axis = axis if axis >= 0 else y.ndim + axis
        n = y.shape[axis]
        k = n % width if n >= width else n
        if k:
            other = _requantize(acc, bound, xs_, scales, ys_, yz_, y_type, how)
            index = [slice(None)] * y.ndim
            index[axis] = slice(n - k, n)
            y[tuple(index)] = other[tuple(index)]
    return [y]


def _input_axis(x, xz, w, wz, ws, b, group, begin, end, out, strides, taps, xs, ys, yz, y_type, requant):
    """w dequantized along its axis 1: weight [m, c, k...] is (w - w_zero_point[c]) * w_scale[c];
    the value of output [n, m, ...] is x_scale / y_scale * (sum_c w_scale[c] * acc_c + w_scale[m] * B[m]),
    acc_c the part of the sum over input channel c of the group, rounded exactly."""
    cg = w.shape[1]
    # w_scale[c] = k_c * 2**-e exactly (float32 values are dyadic)
    ratios = [float(s).as_integer_ratio() for s in ws]
    e = max(d for _, d in ratios).bit_length() - 1
    k = [n * (2**e // d) for n, d in ratios]
    total = None
    for c in range(cg):
        wd = np.zeros(w.shape, dtype=np.int16)
        wd[:, c] = w[:, c].astype(np.int16) - np.int16(wz[c])
        acc_c, _ = ref.accumulate(x, xz, wd, np.zeros(1, dtype=np.int16), group, begin, end, out, strides, taps)
        term = acc_c.astype(np.int64).astype(object) * k[c]
        total = term if total is None else total + term
    if b is not None:
        m = w.shape[0]
        bias = np.array([int(b[i]) * k[i] for i in range(m)], dtype=object)
        total = total + bias.reshape((1, m) + (1,) * (total.ndim - 2))
    num, den = ref.multiplier(xs, 2.0**-e, ys)
    q, half = _rne_ratio(total, num, den)
    return _round_variant(q, half, yz, y_type, "exact" if requant == "exact" else requant)


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _conv(inputs, attrs, **deviation)
    fn.__doc__ = f"QLinearConv with the deviation {deviation} (generator.reference.qlinear_conv_faults)."
    return fn


# ---------------------------------------------------------------------------------------
# equivalence proofs, per class
# ---------------------------------------------------------------------------------------
def _unless_same(p: dict) -> str | None:
    if _parts(p)[0] == "explicit":
        return "auto_pad is NOTSET or VALID: there is no SAME padding to split"
    return None


def _unless_dilated(p: dict) -> str | None:
    return None if _parts(p)[1] else "every dilation is 1: ignoring dilations changes no tap"


def _unless_per_channel(p: dict) -> str | None:
    return None if _parts(p)[2] else ("w_scale and w_zero_point are per tensor (one element): there is no "
                                      "per-channel axis or element to pick")


def _unless_bias(p: dict) -> str | None:
    return None if _parts(p)[3] else "there is no B to ignore"


def _unless_auto_pad_read(p: dict) -> str | None:
    if p.get("auto_pad") == "SAME_UPPER":
        return "auto_pad is SAME_UPPER: read as SAME_UPPER it is itself"
    return None


_WRAP_PROOF = ("a defined input has conv + B within int32 (outside is undefined [reference: UNDEF_ACC_INT32] and goes "
               "to probe/); integer sums computed modulo 2**32 equal the exact sum whenever that lies in int32, "
               "whatever the partial sums do")


_REQUANT_SEEN = {
    "requant_float32": "onnxruntime (MLAS MlasRequantizeOutput: float32 output_scales, float(acc) * scale)",
    "requant_float64": "consistent with onnx-reference 1.23.2 (measured here: 48 failing data sets, each also "
                       "explained by another requantization model); a double requantization as in onnxruntime's "
                       "reference kernels",
    "requant_fixed_point": "gemmlowp / TFLite kernels (QuantizeMultiplier, MultiplyByQuantizedMultiplier); "
                           "onnxruntime's QLinearConv before MLAS (gemmlowp output pipeline)",
    "zero_point_before_rounding": "onnx.reference (np.round(R + y_zero_point))",
    "round_half_away": "consistent with onnxruntime 1.32.0, onnx-reference 1.23.2 and OpenVINO 2026.4.1 on tie data "
                       "sets (measured here; each also explained by requant_fixed_point)",
    "saturate_before_zero_point": _NOT_SEEN + "a requantization that clamps before adding the zero point (the order "
                                              "QuantizeLinear implementations are sometimes written in)",
}

FAULTS: tuple[Fault, ...] = tuple(
    Fault(f"qlinear_conv.{name}", what, _node(requant=how), seen_in=_REQUANT_SEEN[name])
    for name, how, what in REQUANT_FAULTS
) + (
    Fault("qlinear_conv.per_channel_input_axis",
          "takes per-channel w_scale / w_zero_point along w's axis 1 (input channels) when it has C / group == M "
          "elements; refuses other per-channel shapes", _node(scale_axis="input"), may_refuse=True,
          seen_in="OpenVINO ONNX frontend (DequantizeLinear of w with axis 1; other shapes fail to convert: "
                  "2026.4.1 'The number of dequantization scale elements '5' must match the input shape dimension "
                  "'3 pointed to by the axis attribute: 1', measured on the 12 per-channel data sets with "
                  "C / group != M)",
          equivalent=_unless_per_channel),
    Fault("qlinear_conv.per_channel_first_scale",
          "uses w_scale[0] for every output channel", _node(scale_axis="first"), equivalent=_unless_per_channel,
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor scale slot of a per-channel model"),
    Fault("qlinear_conv.same_split_swapped",
          "puts SAME's odd padding pixel on the wrong side (SAME_UPPER as SAME_LOWER and back)",
          _node(same_swapped=True), equivalent=_unless_same,
          seen_in="consistent with OpenVINO 2026.4.1 (measured here: 4 failing SAME data sets of the default suite)"),
    Fault("qlinear_conv.dilation_ignored",
          "reads the kernel's taps as if every dilation were 1 (padding and output shape still dilated)",
          _node(dilation_ignored=True), equivalent=_unless_dilated,
          seen_in="consistent with OpenVINO 2026.4.1 (measured here: 4 failing dilated data sets of the default "
                  "suite)"),
    Fault("qlinear_conv.same_pads_from_undilated_kernel",
          "computes SAME_UPPER / SAME_LOWER's total padding per axis from the undilated kernel size, "
          "(ceil(i / s) - 1) * s + k - i, not clamped at 0 (a negative pad crops the input), and convolves with "
          "the dilated kernel", _node(same_undilated=True), equivalent=_unless_same,
          seen_in="tinygrad 0.14.0 onnx frontend (_resolve_pool_pads; CPU, clang 19 and 14; measured: reproduces "
                  "its 127 failing SAME data sets of the suite: 124 dilated, e.g. "
                  "test_qlinearconv_same_lower_s1_d2_even[0] with shape (1, 3, 5, 7) for (1, 3, 7, 9), and the 3 of "
                  "test_qlinearconv_config_010_random, kernel 1, stride 3 on 3 rows: total -2, one row cut at each "
                  "end)"),
    Fault("qlinear_conv.one_d_refused", "refuses a 1-D convolution (x of rank 3)", _node(one_d_refused=True),
          may_refuse=True,
          seen_in="tinygrad 0.14.0 onnx frontend (QLinearConv reshapes w_zero_point to (-1, 1, 1, 1), which makes "
                  "w - w_zero_point 4-D: 'Input Tensor shape (N, C, W) does not match the shape of the weights'; "
                  "measured: all 72 data sets of the suite's 1-D cases, per tensor and per channel)"),
    Fault("qlinear_conv.per_channel_as_4d",
          "in 3-D, takes per-channel w_zero_point along w's input channels and w_scale along the output's depth "
          "(the reshapes of a 2-D convolution); refuses where they do not broadcast",
          _node(per_channel_as_4d=True), equivalent=_unless_per_channel, may_refuse=True,
          seen_in="tinygrad 0.14.0 onnx frontend (QLinearConv reshapes w_zero_point to (-1, 1, 1, 1) and w_scale to "
                  "(1, -1, 1, 1); measured: reproduces the 15 data sets of the suite's 3-D per-channel cases, 9 "
                  "wrong values (test_qlinearconv_conv3d_per_channel_depth_1 of shape (1, 2, 2, 2, 2) for "
                  "(1, 2, 1, 2, 2)), 6 'shape mismatch: objects cannot be broadcast to a single shape' errors)"),
    Fault("qlinear_conv.int16_pair_saturation",
          "adds the raw x * w products in adjacent pairs (NHWC order, channels innermost) with int16 saturation "
          "(x86 VPMADDUBSW: x uint8, w int8; other type pairs exact), zero points applied after", _node(pairs16=True),
          seen_in="onnxruntime 1.32, x uint8 / w int8 on x86-64 AVX2 without VNNI (MLAS U8S8 kernel; measured: "
                  "reproduces each failing data set)", cpu="x86-64 without VNNI"),
    Fault("qlinear_conv.bias_ignored", "leaves out B", _node(bias_ignored=True), equivalent=_unless_bias,
          seen_in=_NOT_SEEN + "a converter that maps QLinearConv to a ConvInteger without its optional 9th input"),
    Fault("qlinear_conv.accumulator_wrap32",
          "accumulates conv + B in int32 with wraparound", _node(wrap32=True),
          equivalent=lambda p: _WRAP_PROOF,
          seen_in=_NOT_SEEN + "every int32 accumulator (equivalent on every defined input)"),
    Fault("qlinear_conv.per_channel_input_axis_zero_point_before_rounding",
          "both: per-channel w_scale / w_zero_point along w's axis 1 (when C / group == M) and y_zero_point added "
          "before rounding (per tensor: zero_point_before_rounding)",
          _node(scale_axis="input", requant="zero_point_first"), may_refuse=True,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: the 12 per-channel witness data sets of the default suite "
                  "that neither model alone explained; its frontend's DequantizeLinear on axis 1 and its "
                  "QuantizeLinear's zero point before rounding, as in the chains family)"),
    Fault("qlinear_conv.auto_pad_present_as_same_upper",
          "pads as SAME_UPPER whenever the model writes auto_pad, whatever its value (NOTSET and VALID included)",
          _node(auto_pad_presence=True), equivalent=_unless_auto_pad_read,
          seen_in=_NOT_SEEN + "a converter that tests the attribute's presence instead of its value (issue 21's "
                              "explicit-defaults axis: auto_pad=\"NOTSET\" written)"),
) + tuple(
    Fault(f"qlinear_conv.width_tail{w}_round_half_away",
          f"rounds ties half away from zero in the last Wo % {w} output positions of each row (all of them when "
          f"Wo < {w}): the vectorized loop rounds to even, its scalar remainder with std::round",
          _node(tail=(-1, w, "half_away")),
          seen_in=_NOT_SEEN + f"a {w}-lane requantization loop whose scalar remainder calls std::round "
                              "(issue 21's vector-tail axis)")
    for w in TAIL_WIDTHS
) + (
    Fault("qlinear_conv.channel_tail8_round_half_away",
          "rounds ties half away from zero in the last M % 8 output channels (all of them when M < 8): the output "
          "channels packed by 8, the remainder block requantized by scalar code", _node(tail=(1, 8, "half_away")),
          seen_in=_NOT_SEEN + "weights packed in blocks of 8 output channels with a scalar remainder block "
                              "(issue 21's vector-tail axis)"),
    Fault("qlinear_conv.width_tail8_unsaturated",
          "converts the last Wo % 8 output positions of each row (all when Wo < 8) to the output type without "
          "saturating (the value wraps modulo 256)", _node(tail=(-1, 8, "unsaturated")),
          seen_in=_NOT_SEEN + "a scalar remainder that casts the int32 result to 8 bits without the vector "
                              "loop's packus / saturating narrow (issue 21's vector-tail axis)"),
)
