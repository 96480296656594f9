"""Fault models of ONNX ConvInteger-10: plausible wrong implementations, each the reference
(generator/reference/conv_integer.py) with one deviation (docs/design.md, "Fault models, witnesses, diagnosis";
generator/faults.py says what a fault module holds). Every fault has the reference node function's signature.

  zero points   x_zero_point / w_zero_point ignored; a per-channel w_zero_point read as a scalar (its element 0),
                refused (onnxruntime); an x_zero_point left out by the empty name before a given
                w_zero_point refused (OpenVINO, tinygrad); a 1-D w_zero_point subtracted by numpy's broadcasting,
                along w's last axis (tinygrad); a 1-D w_zero_point reshaped to [n, 1, 1, 1] as for a 2-D convolution
                (onnx.reference: a 1-D convolution's w becomes 4-D, a 3-D one's zero points line up on w's input
                channels); x - x_zero_point
                and w - w_zero_point computed in the operands' 8-bit types (wrap)
  padding       a padded position holds the quantized 0 instead of x_zero_point (READING_PADDING: it adds
                (0 - x_zero_point) (w - w_zero_point) per tap); SAME_UPPER / SAME_LOWER's odd pixel on the wrong side;
                SAME with a dilation > 1 refused (onnxruntime);
                SAME's total padding from the undilated kernel, unclamped (tinygrad's QLinearConv); a written auto_pad
                of any value padded as SAME_UPPER (the explicit-defaults axis)
  geometry      dilations ignored by the kernel's taps; group's channel offset never applied (every output channel
                reads the first group's input channels)
  types         every int8 input (and its zero point) read as uint8
  arithmetic    raw u8 x s8 products added in adjacent pairs with int16 saturation (VPMADDUBSW; NHWC order,
                generator/reference/qlinear_conv_faults.int16_pairs), and the other type pairs shifted into u8 x s8
                first; each product wrapped to int16 ("The production MUST never overflow"); the sum accumulated in
                int16; the sum accumulated in float32 in K order (C / group x kernel taps, channel outer)
  vector tails  the last K % W products of each dot product left out (W = 4, 8, 16; all when K < W)

Groups (group_key): "<x type> <w type> x_zp=<absent|present> w_zp=<absent|tensor|channel>" from case.json "params"
(x_type, w_type, x_zp, w_zp; "one" ([1]) is per tensor): 4 x 2 x 3 = 24 groups. Those are the parameters that decide
whether a fault can differ at all (equivalent() proves where not); shapes, ranks, the attributes (auto_pad, strides,
dilations, group) are data of the group: every group's witness configurations (generator/witness/conv_integer.py)
are grouped, dilated, strided and padded, explicitly and by SAME_LOWER, so that the geometry faults differ in every
group.
"""

from __future__ import annotations

from math import prod

import numpy as np

from generator.faults import Fault, Refusal
from generator.reference import conv_integer as ref
from generator.reference import qlinear_conv as qc
from generator.reference.qlinear_conv_faults import int16_pairs

TYPES = ("uint8", "int8")
X_FORMS = {"absent": "absent", "tensor": "present", "one": "present"}
W_FORMS = {"absent": "absent", "tensor": "tensor", "one": "tensor", "channel": "channel"}
TAIL_WIDTHS = (4, 8, 16)
_SAME = ("SAME_UPPER", "SAME_LOWER")
_NOT_SEEN = "not seen; modelled as "


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def parts(p: dict) -> tuple[str, str, str, str]:
    """(x type, w type, x_zero_point form, w_zero_point form) of a case's params."""
    return (p.get("x_type", "uint8"), p.get("w_type", "uint8"), X_FORMS[p.get("x_zp", "absent")],
            W_FORMS[p.get("w_zp", "absent")])


def key_of(x_type: str, w_type: str, x_zp: str, w_zp: str) -> str:
    return f"{x_type} {w_type} x_zp={x_zp} w_zp={w_zp}"


def group_key(meta: dict) -> str:
    """The group of a case (module docstring)."""
    return key_of(*parts(meta.get("params") or {}))


def all_groups() -> list[tuple[str, str, str, str]]:
    return [(x, w, xz, wz) for x in TYPES for w in TYPES for xz in ("absent", "present")
            for wz in ("absent", "tensor", "channel")]


# ---------------------------------------------------------------------------------------
# the reference with one deviation
# ---------------------------------------------------------------------------------------
def _columns(xd: np.ndarray, pad_value: int, group: int, cg: int, kernel: tuple, begin, end, out, strides,
             dilations, group_offset: bool = True) -> np.ndarray:
    """im2col of the differences xd = x - x_zero_point (int64), pad_value at padded positions:
    [n, group, cg * taps (channel outer), positions]."""
    n, c = xd.shape[:2]
    padded = np.full((n, c) + tuple(i + b + e for i, b, e in zip(xd.shape[2:], begin, end)), pad_value, np.int64)
    padded[(slice(None), slice(None)) + tuple(slice(b, b + i) for b, i in zip(begin, xd.shape[2:]))] = xd
    sp = padded.strides[2:]
    windows = np.lib.stride_tricks.as_strided(
        padded, (n, c) + tuple(kernel) + tuple(out),
        padded.strides[:2] + tuple(t * d for t, d in zip(sp, dilations)) + tuple(t * s for t, s in zip(sp, strides)),
        writeable=False)
    cols = np.ascontiguousarray(windows).reshape(n, group, cg * prod(kernel), prod(out))
    if not group_offset:  # every group reads the first group's channels
        cols = np.broadcast_to(cols[:, :1], cols.shape)
    return cols


def _compute(inputs: list, attrs: dict, *, drop_x: bool = False, drop_w: bool = False, w_first: bool = False,
             w_refused: bool = False, w_as_4d: bool = False, diff8: bool = False, pad_zero: bool = False,
             same_swapped: bool = False, same_undilated: bool = False, auto_pad_presence: bool = False,
             dilation_ignored: bool = False, group_ignored: bool = False, as_uint8: bool = False,
             pairs16: bool = False, product16: bool = False, acc16: bool = False, acc_f32: bool = False,
             k_tail: int = 0, same_dilated_refused: bool = False, empty_refused: bool = False,
             w_last: bool = False) -> list[np.ndarray]:
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    xz = None if len(inputs) < 3 or inputs[2] is None else np.asarray(inputs[2])
    wz = None if len(inputs) < 4 or inputs[3] is None else np.asarray(inputs[3])
    attrs = ref._node_attrs(attrs)
    ref.check_shapes(x.shape, w.shape, None if xz is None else xz.shape, None if wz is None else wz.shape, attrs)
    per_channel = wz is not None and wz.size > 1
    if empty_refused and xz is None and wz is not None:
        raise Refusal("an optional input left out by the empty name before a present one")
    if w_refused and per_channel:
        raise Refusal("w_zero_point must be a scalar or a 1-D tensor of one element (per tensor)")
    if as_uint8:
        x, w = x.view(np.uint8), w.view(np.uint8)
        xz, wz = (None if v is None else v.view(np.uint8) for v in (xz, wz))
    xz_ = 0 if xz is None or drop_x else int(xz.reshape(-1)[0])
    m, cg = w.shape[:2]
    wz_ = np.zeros((m, 1), np.int64) if wz is None or drop_w else \
        np.broadcast_to(wz.astype(np.int64).reshape(-1, 1), (m, 1))
    if w_first:
        wz_ = np.broadcast_to(wz_[:1], (m, 1))
    wd = w.astype(np.int64).reshape(m, -1) - wz_  # [m, cg * taps], channel outer
    if w_as_4d and wz is not None and wz.ndim == 1:  # w - w_zero_point.reshape(-1, 1, 1, 1), numpy's broadcasting
        if w.ndim != 4:
            try:
                w4 = w.astype(np.int64) - wz.astype(np.int64).reshape(-1, 1, 1, 1)
            except ValueError as exc:
                raise Refusal(f"w - w_zero_point[:, None, None, None]: {exc}") from None
            if w4.shape != w.shape:
                raise Refusal(f"w - w_zero_point[:, None, None, None] has shape {w4.shape}, w {w.shape}")
            wd = w4.reshape(m, -1)
    if w_last and wz is not None and wz.ndim == 1:  # w - w_zero_point as numpy broadcasts a vector: the last axis
        try:
            wl = w.astype(np.int64) - wz.astype(np.int64)
        except ValueError as exc:
            raise Refusal(f"w - w_zero_point: {exc}") from None
        if wl.shape != w.shape:
            raise Refusal(f"w - w_zero_point has shape {wl.shape}, w {w.shape}")
        wd = wl.reshape(m, -1)
    xd = x.astype(np.int64) - xz_
    if diff8:
        xd = xd.astype(x.dtype).astype(np.int64)
        wd = wd.astype(w.dtype).astype(np.int64)
    kernel = w.shape[2:]
    group = int(attrs.get("group", 1))
    begin, end, out, strides, dilations = ref.geometry(x.shape, w.shape, attrs)
    auto_pad = attrs.get("auto_pad", "NOTSET")
    if same_dilated_refused and auto_pad in _SAME and max(dilations) > 1:
        raise Refusal("Dilation not supported for SAME_UPPER or SAME_LOWER")
    if auto_pad_presence and "auto_pad" in attrs:
        auto_pad = "SAME_UPPER"
        begin, end, out = qc.resolve_padding(x.shape[2:], kernel, strides, dilations, auto_pad, None, ref.OP)
    if same_swapped and auto_pad in _SAME:
        begin, end, _ = qc.resolve_padding(x.shape[2:], kernel, strides, dilations,
                                           _SAME[1 - _SAME.index(auto_pad)], None, ref.OP)
    if same_undilated and auto_pad in _SAME:  # the total from the undilated kernel, unclamped (a negative pad crops)
        total = [(-(-i // s) - 1) * s + k - i for i, s, k in zip(x.shape[2:], strides, kernel)]
        begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        end = [t - b for t, b in zip(total, begin)]
        xd = xd[(slice(None), slice(None)) + tuple(slice(-min(b, 0), i + min(e, 0))
                                                   for b, e, i in zip(begin, end, xd.shape[2:]))]
        begin, end = [max(b, 0) for b in begin], [max(e, 0) for e in end]
        extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
        out = [(i + b + e - t) // s + 1 for i, b, e, t, s in zip(xd.shape[2:], begin, end, extent, strides)]
        if min(out) < 1:
            raise Refusal(f"the cropped input gives an output of shape {out}")
    taps = [1] * len(kernel) if dilation_ignored else dilations
    n, shape = x.shape[0], (x.shape[0], m) + tuple(out)
    if pairs16:
        if x.dtype == np.uint8 and w.dtype == np.int8:
            acc = int16_pairs(x, xz_, w, wz_.reshape(-1), group, begin, end, out, strides, taps)
        else:  # int8 x + 128, uint8 w - 128 (zero points alike): the differences unchanged, u8 x s8 ranges
            sx, sw = (128 if x.dtype == np.int8 else 0), (-128 if w.dtype == np.uint8 else 0)
            acc = int16_pairs(x.astype(np.int64) + sx, xz_ + sx, w.astype(np.int64) + sw, wz_.reshape(-1) + sw,
                              group, begin, end, out, strides, taps)
        return _wrap32(acc.reshape(shape))
    cols = _columns(xd, -xz_ if pad_zero else 0, group, cg, kernel, begin, end, out, strides, taps,
                    group_offset=not group_ignored)
    wg = wd.reshape(group, m // group, -1)  # [group, m in group, K]
    k = wg.shape[-1]
    if k_tail:
        keep = k - k % k_tail
        wg, cols = wg[..., :keep], cols[:, :, :keep]
    if product16 or acc_f32:
        p = wg[None, :, :, :, None] * cols[:, :, None, :, :]  # [n, group, m in group, K, positions]
        if product16:
            acc = ((p + 2**15) % 2**16 - 2**15).sum(axis=3)
        else:
            f = np.zeros(p.shape[:3] + p.shape[4:], np.float32)
            for i in range(p.shape[3]):
                f = (f + p[:, :, :, i].astype(np.float32)).astype(np.float32)
            acc = np.clip(f.astype(np.float64), ref.INT32_MIN, ref.INT32_MAX).astype(np.int64)
    else:
        acc = np.matmul(wg[None], cols)
    if acc16:
        acc = (acc + 2**15) % 2**16 - 2**15
    return _wrap32(acc.reshape(shape))


def _wrap32(y: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(y).astype(np.int64).astype(np.uint32).view(np.int32)]


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _compute(inputs, attrs, **deviation)
    fn.__doc__ = f"ConvInteger with the deviation {deviation} (generator.reference.conv_integer_faults)."
    return fn


# ---------------------------------------------------------------------------------------
# equivalence proofs, per group
# ---------------------------------------------------------------------------------------
def _unless(index: int, form: str, proof: str):
    return lambda p: None if parts(p)[index] == form else proof


def _unless_x_zero_point(p: dict) -> str | None:
    return None if parts(p)[2] == "present" else "there is no x_zero_point: it is 0 either way"


def _unless_w_zero_point(p: dict) -> str | None:
    return None if parts(p)[3] != "absent" else "there is no w_zero_point: it is 0 either way"


def _unless_zero_points(p: dict) -> str | None:
    return None if parts(p)[2:4] != ("absent", "absent") else "no zero point: nothing is subtracted"


def _unless_int8(p: dict) -> str | None:
    return None if "int8" in parts(p)[:2] else "x and w are uint8: reading them as uint8 changes nothing"


def _magnitude(t: str, zp: str) -> int:
    """The largest |v - zero point|: 255 for uint8 or with a zero point, 128 for int8 without one."""
    return 255 if t == "uint8" or zp != "absent" else 128


def _unless_product_leaves_int16(p: dict) -> str | None:
    xt, wt, xz, wz = parts(p)
    if _magnitude(xt, xz) * _magnitude(wt, wz) > 2**15 - 1:
        return None
    return "|x - x_zero_point| * |w - w_zero_point| <= 128 * 128 here (int8 operands without zero points)"


FAULTS: tuple[Fault, ...] = (
    Fault("conv_integer.x_zero_point_ignored", "leaves x_zero_point out (x - 0)", _node(drop_x=True),
          equivalent=_unless_x_zero_point,
          seen_in=_NOT_SEEN + "MatMulInteger's zero points ignored (iree-org/iree#24583) on the convolution"),
    Fault("conv_integer.w_zero_point_ignored", "leaves w_zero_point out (w - 0)", _node(drop_w=True),
          equivalent=_unless_w_zero_point,
          seen_in=_NOT_SEEN + "MatMulInteger's zero points ignored (iree-org/iree#24583) on the convolution"),
    Fault("conv_integer.w_zero_point_first", "reads a per-channel w_zero_point as a scalar: its element 0 for "
          "every output channel", _node(w_first=True), equivalent=_unless(3, "channel", "w_zero_point is per tensor"),
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor zero point slot of a per-channel model"),
    Fault("conv_integer.w_zero_point_per_channel_refused",
          "refuses a per-channel w_zero_point (M elements), though the text defines it", _node(w_refused=True),
          equivalent=_unless(3, "channel", "w_zero_point is per tensor: nothing to refuse"), may_refuse=True,
          seen_in="onnxruntime 1.32.0 CPU (conv_integer.cc: \"IsScalarOr1ElementVector(W_Zero_Point) was false. Non "
                  "per-tensor quantization is not supported now.\"; measured here)"),
    Fault("conv_integer.w_zero_point_as_4d",
          "subtracts a 1-D w_zero_point ([M], or [1]) reshaped to [n, 1, 1, 1] with numpy's broadcasting: right in "
          "2-D, refused where it does not broadcast to w's shape (1-D; 3-D unless it has C / group or 1 elements), "
          "along w's input channels in 3-D", _node(w_as_4d=True), may_refuse=True, equivalent=_unless_w_zero_point,
          seen_in="onnx-reference 1.23 (onnx/reference/ops/op_conv_integer.py: np.expand_dims(w_zero_point, "
                  "(1, 2, 3)) for any w_zero_point of rank 1; measured here: 1-D convolutions and the float32 witnesses "
                  "with a [1] w_zero_point raise 'non-broadcastable output operand')"),
    Fault("conv_integer.omitted_x_zero_point_refused",
          "refuses a model whose x_zero_point is left out by the empty name while w_zero_point is given",
          _node(empty_refused=True), may_refuse=True,
          equivalent=lambda p: None if parts(p)[2:4] != ("absent", "absent") and parts(p)[2] == "absent" else
          "x_zero_point is given, or both zero points are left out (no empty name before a present input)",
          seen_in="OpenVINO 2026.4.1 CPU (measured here: compile_model raises \"CPU plug-in doesn't support NullNode "
                  "operation with dynamic rank\"; MatMulInteger's matmul_integer.omitted_a_zero_point_refused); "
                  "tinygrad 0.14.0 (measured here: 'Could not infer dtype of None')"),
    Fault("conv_integer.w_zero_point_along_last_axis",
          "subtracts a 1-D w_zero_point from w by numpy's broadcasting (along w's last axis, a kernel axis): wrong "
          "where M equals the last kernel size, refused where it does not broadcast", _node(w_last=True),
          may_refuse=True, equivalent=_unless(3, "channel", "w_zero_point is per tensor: one value broadcasts alike"),
          seen_in="tinygrad 0.14.0 onnx frontend (measured here: 'shape mismatch: objects cannot be broadcast to a "
                  "single shape ((2, 2, 3, 3), (2,))' on the per-channel data sets, wrong values where M is the "
                  "last kernel size: test_convinteger_example_with_padding, test_convinteger_conv3d_per_channel)"),
    Fault("conv_integer.difference_in_8_bits",
          "subtracts each zero point in the operand's 8-bit type (x - x_zero_point wraps modulo 256)",
          _node(diff8=True), equivalent=_unless_zero_points,
          seen_in="AMDMIGraphX#2903 review (MatMulInteger: \"sub between two uint8_t types which would result in "
                  "incorrect results\")"),
    Fault("conv_integer.padding_zero",
          "pads x with the quantized value 0 instead of x_zero_point (a padded tap adds (0 - x_zero_point) * "
          "(w - w_zero_point))", _node(pad_zero=True), equivalent=_unless_x_zero_point,
          seen_in=_NOT_SEEN + "Conv's zero padding applied to the quantized input before the zero point is "
                              "subtracted (READING_PADDING)"),
    Fault("conv_integer.same_split_swapped",
          "puts SAME's odd padding pixel on the wrong side (SAME_UPPER as SAME_LOWER and back)",
          _node(same_swapped=True),
          seen_in=_NOT_SEEN + "QLinearConv's qlinear_conv.same_split_swapped (consistent with OpenVINO 2026.4.1 "
                              "there)"),
    Fault("conv_integer.same_pads_from_undilated_kernel",
          "computes SAME's total padding per axis from the undilated kernel, (ceil(i / s) - 1) * s + k - i, not "
          "clamped at 0 (a negative pad crops the input)", _node(same_undilated=True), may_refuse=True,
          seen_in="tinygrad 0.14.0 onnx frontend (_resolve_pool_pads; measured here: reproduces its 32 failing "
                  "dilated SAME data sets of the default suite, e.g. test_convinteger_same_lower_s1_d2_even; "
                  "qlinear_conv's fault of the same name)"),
    Fault("conv_integer.same_dilated_refused",
          "refuses auto_pad SAME_UPPER / SAME_LOWER with a dilation > 1 (qlinear_conv.READING_SAME_DILATED reads "
          "it)", _node(same_dilated_refused=True), may_refuse=True,
          seen_in="onnxruntime 1.32.0 CPU (conv_attributes.h: \"Dilation not supported for AutoPadType::SAME_UPPER or "
                  "AutoPadType::SAME_LOWER.\"; measured here: the 36 dilated SAME data sets of the default suite)"),
    Fault("conv_integer.auto_pad_present_as_same_upper",
          "pads as SAME_UPPER whenever the model writes auto_pad, whatever its value (NOTSET and VALID included)",
          _node(auto_pad_presence=True),
          seen_in=_NOT_SEEN + "a converter that tests the attribute's presence instead of its value (issue 21's "
                              "explicit-defaults axis)"),
    Fault("conv_integer.dilation_ignored",
          "reads the kernel's taps as if every dilation were 1 (padding and output shape still dilated)",
          _node(dilation_ignored=True),
          seen_in=_NOT_SEEN + "QLinearConv's qlinear_conv.dilation_ignored (consistent with OpenVINO 2026.4.1 there)"),
    Fault("conv_integer.group_ignored",
          "never applies a group's channel offset: every output channel convolves the first C / group input "
          "channels", _node(group_ignored=True),
          seen_in=_NOT_SEEN + "a grouped convolution lowered to one GEMM per group with the input pointer not "
                              "advanced"),
    Fault("conv_integer.int8_read_as_uint8",
          "reads every int8 input (x, w and their zero points) as uint8", _node(as_uint8=True),
          equivalent=_unless_int8,
          seen_in=_NOT_SEEN + "a kernel registered for uint8 only given int8 bits (onnxruntime's ConvInteger took "
                              "uint8 alone before its int8 kernels)"),
    Fault("conv_integer.int16_pair_saturation",
          "adds the raw x * w products in adjacent pairs (NHWC order, channels innermost) with int16 saturation "
          "(x86 VPMADDUBSW), zero points applied after", _node(pairs16=True),
          applies=lambda p: parts(p)[:2] == ("uint8", "int8"),
          seen_in="onnxruntime#16105 (MLAS U8S8 kernels on x86-64 without VNNI; QLinearConv's "
                  "qlinear_conv.int16_pair_saturation, measured there)", cpu="x86-64 without VNNI"),
    Fault("conv_integer.int16_pair_saturation_shifted",
          "shifts the other type pairs into u8 x s8 (int8 x + 128, uint8 w - 128, zero points alike), then adds the "
          "raw products in adjacent pairs with int16 saturation", _node(pairs16=True),
          applies=lambda p: parts(p)[:2] != ("uint8", "int8"),
          seen_in="rten#1208 (every pair shifted by 128 into the u8 x s8 kernel; saturates on x86 without VNNI)",
          cpu="x86-64 without VNNI"),
    Fault("conv_integer.product_int16",
          "wraps each product (x - x_zero_point)(w - w_zero_point) to int16 before adding (\"The production MUST "
          "never overflow\")", _node(product16=True), equivalent=_unless_product_leaves_int16,
          seen_in=_NOT_SEEN + "a 16-bit multiply (PMULLW / int16 SIMD lanes) of two 8-bit differences"),
    Fault("conv_integer.accumulate_int16", "accumulates the sum in int16 (wraps modulo 2**16)", _node(acc16=True),
          seen_in=_NOT_SEEN + "an int16 accumulator"),
    Fault("conv_integer.accumulate_float32",
          "adds the exact products in float32, in K order (channel outer, kernel offset inner), then converts to "
          "int32 (|sum| > 2**24 rounds)", _node(acc_f32=True),
          seen_in="openvinotoolkit/openvino#37956 (CPU: integer convolutions and MatMuls computed in float32); "
                  "onnx2tf#634 (integer inputs cast to float32)"),
) + tuple(
    Fault(f"conv_integer.k_tail{w}_dropped",
          f"leaves out the last K % {w} products of each dot product (K = C / group x kernel taps, channel outer; all "
          f"of them when K < {w}): a {w}-step K loop without its remainder", _node(k_tail=w),
          seen_in=_NOT_SEEN + f"a {w}-wide K loop whose scalar remainder is missing (issue 21's vector-tail axis)")
    for w in TAIL_WIDTHS
)
