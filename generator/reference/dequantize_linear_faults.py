"""Fault models of ONNX DequantizeLinear: plausible wrong implementations, each the reference with one step
changed (docs/design.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module holds).

    reference: y = round_T((x - x_zero_point) * x_scale), the difference exact, one rounding to the output type
               (generator/reference/dequantize_linear.py; paths that round earlier are tolerated by the cases'
               compare, so they are no faults here: computing the product in float32 before a float16 output, or
               in the output type as DequantizeLinear-23 says, stays within the stated ulps)

Faults (each a node function with the reference's signature):
  float8_zero_point_refused   raises on a float 8 x with a nonzero zero point (onnxruntime, onnx's ReferenceEvaluator)
  zero_point_ignored          y = x * x_scale                   (onnx's ReferenceEvaluator for float4e2m1)
  zero_point_other_signedness the zero point's bits read as the other signedness (int8 <-> uint8, int4 <-> uint4 ...)
  subbyte_sign_extension      int4 / int2 patterns not sign-extended (0b1000 = 8), uint4 / uint2 ones sign-extended
  difference_in_input_type    x - x_zero_point computed in x's own type (integers wrap, float8 / 4 / 6 round)
  float8_specials_as_numbers  float8 NaN / Inf patterns decoded as finite numbers (the exponent rule extended)
  negative_axis_as_default    a negative axis replaced by the default 1 (per-axis)
  block_size_from_shape       the blocks of ceil(D / S) elements instead of block_size
  computed_in_scale_type      y computed in a float16 / bfloat16 x_scale's type, then cast to output_dtype
  bfloat16_truncation         the float32 result cut to bfloat16 by truncation (round toward zero)
  scale_distributed           y = x * x_scale - x_zero_point * x_scale, each product rounded to float32
  flush_subnormals            subnormal scales and results flushed to zero (FTZ / DAZ)
  bfloat16_results_flushed    subnormal bfloat16 results flushed to zero, subnormal scales read as they are (FTZ only)
  float16_result_clamped      a float16 result clamped to [-65504, 65504]: +-Inf -> +-65504, NaN -> +65504
  e8m0_nan_as_number          a float8e8m0 scale's 0xFF read as 2**128 instead of NaN
  output_dtype_ignored        output_dtype left unread: y in x_scale's type, DequantizeLinear-21's rule
  e4m3fn_negative_nan_as_number   float8e4m3fn's 0xFF (negative NaN) decoded as -480, 0x7F still NaN
  zero_scale_folded           a per-tensor x_scale of +-0 folds the product to +0: y = +0 everywhere (x * 0 -> 0)
  short_last_block_refused    raises on blocked quantization whose last block is short (D not a multiple of block_size)

Groups (group_key): opset, x type, scale type, output type, zero point present or not, granularity, a negative
axis or not: every property a fault's reach depends on. Fault.applies says where a fault is a plausible
implementation at all, Fault.equivalent where it provably cannot differ.

killed(): cases compare exactly or in ulps of the output type (where intermediate precisions part), and a fault is
killed when its outputs fail that comparison.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from generator import dtypes, faults
from generator.faults import Fault
from generator.reference import dequantize_linear as ref
from generator.reference.quant_axes import expand, normalize_axis

_OTHER_SIGN = {"int8": "uint8", "uint8": "int8", "int16": "uint16", "uint16": "int16", "int4": "uint4",
               "uint4": "int4", "int2": "uint2", "uint2": "int2"}
_SUBBYTE = ("int4", "uint4", "int2", "uint2")
_FLOAT8 = dtypes.FLOAT8_SATURATE_TYPES


def group_key(meta: dict) -> str:
    p = meta.get("params") or {}
    axis = " negative-axis" if p.get("negative_axis") else ""
    return (f"opset={meta.get('opset')} x={p.get('x')} scale={p.get('scale')} out={p.get('output')} "
            f"zp={int(bool(p.get('zero_point')))} {p.get('granularity')}{axis}")


# ---------------------------------------------------------------------------------------
# the implementation with deviations
# ---------------------------------------------------------------------------------------
def _decode_finite(x: np.ndarray, t: dtypes.DType) -> np.ndarray:
    """Float8 elements decoded by the exponent / mantissa rule alone, NaN and Inf patterns included (float64)."""
    b = t.to_bits(x).astype(np.int64)
    sign = np.where(b & t.sign_mask, -1.0, 1.0)
    e = (b >> t.mantissa_bits) & ((1 << t.exponent_bits) - 1)
    m = b & ((1 << t.mantissa_bits) - 1)
    frac = m / float(1 << t.mantissa_bits)
    mag = np.where(e == 0, frac * 2.0 ** (1 - t.bias), (1 + frac) * 2.0 ** (e - t.bias))
    return sign * mag


def _values(a: np.ndarray, t: dtypes.DType, dev: dict) -> np.ndarray:
    """Elements as float64, read as the deviation says."""
    if a is None:
        return None
    if dev.get("sign_extension") and t.name in _SUBBYTE:
        other = dtypes.get(_OTHER_SIGN[t.name])
        return ref._values(other.from_bits(t.to_bits(a)), other)
    if dev.get("specials_as_numbers") and t.name in _FLOAT8:
        return _decode_finite(a, t)
    if dev.get("e4m3fn_negative_nan") and t.name == "float8e4m3fn":  # 0xFF by the exponent rule, 0x7F still NaN
        return np.where(t.to_bits(a) == 0xFF, -480.0, ref._values(a, t))
    if dev.get("e8m0_nan") and t.name == "float8e8m0":
        v = ref._values(a, t)
        return np.where(np.isnan(v), 2.0**128, v)
    return ref._values(a, t)


def _round_toward_zero_bf16(v: np.ndarray) -> np.ndarray:
    """float32 values cut to bfloat16 (the low 16 bits dropped; NaN kept)."""
    f = np.asarray(v, dtype=np.float32)
    b = (f.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return np.where(np.isnan(f), f, b).astype(ml_dtypes.bfloat16)


def _flush(v: np.ndarray, t: dtypes.DType) -> np.ndarray:
    """Subnormal values of float type t (or of float32 for wider ones) to zero of their sign."""
    tiny = t.smallest_normal if t.is_float and t.nan_style == dtypes.IEEE else np.finfo(np.float32).tiny
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(v) < tiny, np.copysign(0.0, v), v)


def dequantize(inputs: list, attrs: dict, opset: int, input_types: list, **dev) -> list[np.ndarray]:
    """DequantizeLinear with the deviations `dev` (the module docstring names them)."""
    inputs = list(inputs) + [None] * (3 - len(inputs))
    types = list(input_types) + [None] * (3 - len(input_types))
    x, s, z = inputs
    xt, st = dtypes.get(types[0]), dtypes.get(types[1])
    axis, block_size = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    t = ref.check_types(xt, st, xt if z is not None else None, attrs, opset)
    if dev.get("output_dtype_ignored"):
        t = st
    ref.check_shapes(np.shape(x), np.shape(s), None if z is None else np.shape(z), axis, block_size, opset)
    rank = np.ndim(x)
    if dev.get("short_block_refused") and block_size and np.shape(x)[normalize_axis(axis, rank)] % block_size:
        raise faults.Refusal("a short last block: the scale repeated block_size times does not broadcast against x")
    if dev.get("negative_axis") and axis < 0:
        axis = 1
    if dev.get("blocks_from_shape") and block_size:
        i = normalize_axis(axis, rank)
        block_size = math.ceil(np.shape(x)[i] / np.shape(s)[i])
    sv = _values(np.asarray(s), st, dev)
    zero_scale = np.size(s) == 1 and sv.ravel()[0] == 0  # -0.0 too
    if dev.get("flush"):
        sv = _flush(sv, st)
    sv = expand(sv, np.shape(x), axis, block_size)
    xv = _values(np.asarray(x), xt, dev)
    if z is None or dev.get("zp_ignored"):
        zv = np.zeros(np.shape(x))
    elif dev.get("zp_sign"):
        other = dtypes.get(_OTHER_SIGN[xt.name])
        zv = expand(ref._values(other.from_bits(xt.to_bits(np.asarray(z))), other), np.shape(x), axis, block_size)
    else:
        zv = expand(_values(np.asarray(z), xt, dev), np.shape(x), axis, block_size)
    if dev.get("refuse_float8_zero_point") and xt.is_float8 and z is not None and np.any(zv != 0):
        raise faults.Refusal("a float 8 x with a nonzero x_zero_point")
    with np.errstate(all="ignore"):
        d = xv - zv
        if dev.get("in_input_type"):
            if xt.is_float:
                d = ref._values(d.astype(xt.np_dtype), xt) if xt.nan_style == dtypes.IEEE or xt.is_float8 \
                    else ref._values(np.clip(d, -xt.finite_max, xt.finite_max).astype(xt.np_dtype), xt)
            else:
                span = 1 << xt.bits
                d = ((d.astype(np.int64) - xt.int_min) % span) + xt.int_min
        if dev.get("distributed"):
            f32 = np.float32
            y32 = (xv.astype(f32) * sv.astype(f32)) - (zv.astype(f32) * sv.astype(f32))
            y = ref.round_to(y32.astype(np.float64), t)
        elif dev.get("in_scale_type"):
            y = ref.round_to(ref._values(ref.exact_round(d, sv, st), st), t)
        elif dev.get("truncate_bf16") and t.name == "bfloat16":
            y = _round_toward_zero_bf16((d.astype(np.float32) * sv.astype(np.float32)))
        else:
            y = ref.exact_round(d, sv, t)
    if dev.get("clamp_float16") and t.name == "float16":  # min(max(v, -M), M) with NaN -> +M, as TVM gives
        with np.errstate(invalid="ignore"):
            yv = ref._values(y, t)
            y = np.where(np.isnan(yv), t.finite_max, np.clip(yv, -t.finite_max, t.finite_max)).astype(t.np_dtype)
    if dev.get("flush") or (dev.get("flush_results") and t.name == "bfloat16"):
        y = _flush(ref._values(y, t), t).astype(t.np_dtype)
    if dev.get("zero_scale_folded") and zero_scale:  # the rewrite x * 0 -> 0: +0 whatever x and the signs
        y = np.zeros(np.shape(x), t.np_dtype)
    return [np.asarray(y).astype(t.np_dtype)]


def _node(**dev):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return dequantize(inputs, attrs, opset, input_types, **dev)
    fn.__doc__ = f"DequantizeLinear with the deviation {dev} (dequantize_linear_faults)."
    return fn


# ---------------------------------------------------------------------------------------
# where each fault reaches
# ---------------------------------------------------------------------------------------
def _zp(p: dict) -> bool:
    return bool(p.get("zero_point"))


def _int32_zp(p: dict) -> str | None:
    if not _zp(p):
        return "no x_zero_point input: the zero point is 0"
    if p.get("x") == "int32":
        return "int32: a defined zero point is 0 (a nonzero one leaves y undefined)"
    return None


def _output_dtype_named(p: dict) -> str | None:
    if p.get("output") == p.get("scale"):
        return "y's type is x_scale's: output_dtype, given or not, names the type the fault gives"
    return None


def _exact_in_bfloat16(p: dict) -> str | None:
    if p.get("scale") == "float8e8m0" and (p.get("x") == "float4e2m1" or (
            p.get("x") in ("int8", "uint8", "int4", "uint4", "int2", "uint2"))):
        return ("x - x_zero_point has at most 8 significant bits, a multiple of 2**-1, and a float8e8m0 scale is "
                "2**k with k >= -127: every product is exact in bfloat16 and in float32 (or overflows in both)")
    if p.get("scale") == "bfloat16" and p.get("x") == "int2" and not p.get("zero_point"):
        return ("int2 without a zero point is -2, -1, 0 or 1: x * x_scale is a bfloat16 scale times a power of two "
                "(or 0), exact in bfloat16 and in float32, or out of range in both")
    return None


FAULTS: tuple[Fault, ...] = (
    Fault("dequantize_linear.float8_zero_point_refused", "refuses a float 8 x with a nonzero x_zero_point (the "
          "text allows one: y = (x - x_zero_point) * x_scale for every x type)",
          _node(refuse_float8_zero_point=True), may_refuse=True,
          applies=lambda p: _zp(p) and dtypes.get(p["x"]).is_float8,
          seen_in="onnxruntime 1.32.0 CPU ('DequantizeLinear with type float8 should have no zero point or all zero "
                  "points should be 0', quantize_linear.cc) and onnx-reference 1.23.2 ('x_zero_point is not null but "
                  "should be zero for float8 types'), measured here"),
    Fault("dequantize_linear.zero_point_ignored", "computes x * x_scale, leaving out the zero point",
          _node(zp_ignored=True), equivalent=_int32_zp,
          seen_in="onnx 1.23 ReferenceEvaluator (float4e2m1; float8 zero points it does not refuse)"),
    Fault("dequantize_linear.zero_point_other_signedness",
          "reads the zero point's bits as the other signedness (int8 <-> uint8, int4 <-> uint4, ...)",
          _node(zp_sign=True), applies=lambda p: _zp(p) and p.get("x") in _OTHER_SIGN,
          seen_in="not seen here; modelled as a kernel templated on one signedness reading the other's zero point"),
    Fault("dequantize_linear.subbyte_sign_extension",
          "decodes int4 / int2 without sign extension, uint4 / uint2 with it (x and zero point)",
          _node(sign_extension=True), applies=lambda p: p.get("x") in _SUBBYTE,
          seen_in="not seen here; modelled as a nibble unpacking written for one signedness"),
    Fault("dequantize_linear.difference_in_input_type",
          "computes x - x_zero_point in x's type (integers wrap around, float8 / float4 / float6 round)",
          _node(in_input_type=True), equivalent=_int32_zp,
          seen_in="not seen here; modelled as numpy-style arithmetic in the input's own dtype"),
    Fault("dequantize_linear.float8_specials_as_numbers",
          "decodes float8 NaN / Inf patterns by the exponent rule, as finite numbers",
          _node(specials_as_numbers=True), applies=lambda p: p.get("x") in _FLOAT8,
          seen_in="not seen here; modelled as a float8 decoder by lookup of exponent and mantissa alone"),
    Fault("dequantize_linear.negative_axis_as_default", "takes a negative axis as the default 1",
          _node(negative_axis=True),
          seen_in="not seen here; modelled as an axis normalisation that falls back to the default",
          applies=lambda p: p.get("granularity") == "per-axis" and bool(p.get("negative_axis")),
          equivalent=lambda p: "the axis is 1 either way" if p.get("axis") == 1 else None),
    Fault("dequantize_linear.block_size_from_shape",
          "derives the block size from the shapes, ceil(D / S), instead of the block_size attribute",
          _node(blocks_from_shape=True), applies=lambda p: p.get("granularity") == "blocked",
          seen_in="not seen here; modelled as a blocked kernel that infers the block from the scale's shape"),
    Fault("dequantize_linear.computed_in_scale_type",
          "computes y in x_scale's float16 / bfloat16 type, then casts it to output_dtype",
          _node(in_scale_type=True),
          seen_in="not seen here; modelled as DequantizeLinear-21's rule (output of x_scale's type) kept at 23",
          applies=lambda p: p.get("scale") in ("float16", "bfloat16") and p.get("output") != p.get("scale")),
    Fault("dequantize_linear.bfloat16_truncation",
          "computes y in float32 and cuts it to bfloat16 by truncation (round toward zero)",
          _node(truncate_bf16=True),
          seen_in="OpenVINO 2026.4 CPU cuts some bfloat16 results so, not all (measured here; the fault does not "
                  "reproduce its outputs exactly)",
          applies=lambda p: p.get("output") == "bfloat16", equivalent=_exact_in_bfloat16),
    Fault("dequantize_linear.scale_distributed",
          "computes x * x_scale - x_zero_point * x_scale in float32 (each product rounded)",
          _node(distributed=True), equivalent=_int32_zp,
          seen_in="onnx ReferenceEvaluator 1.23.2 (measured here: 2 failing data sets)"),
    Fault("dequantize_linear.flush_subnormals", "flushes subnormal scales and results to zero (FTZ / DAZ)",
          _node(flush=True),
          seen_in="not seen here; modelled as a kernel run with FTZ / DAZ set (common on accelerators)"),
    Fault("dequantize_linear.bfloat16_results_flushed", "flushes subnormal bfloat16 results to zero (FTZ on the "
          "output only: subnormal scales are read as they are)", _node(flush_results=True),
          applies=lambda p: p.get("output") == "bfloat16",
          seen_in="OpenVINO 2026.4.1 CPU (measured here: every_pattern int8 / uint8 / float8 with a bfloat16 scale "
                  "of 2**-130, e8m0 int8 -> bfloat16: subnormal results -> +-0)"),
    Fault("dequantize_linear.float16_result_clamped", "clamps a float16 result to [-65504, 65504] (a clamping "
          "float32 -> float16 conversion): +-Inf and overflowing products -> +-65504, NaN -> +65504",
          _node(clamp_float16=True), applies=lambda p: p.get("output") == "float16",
          seen_in="TVM 0.27 (apache-tvm, llvm target; measured here: float16 outputs of every_pattern, output_dtype, "
                  "scale_specials and nan_payload: Inf -> 0x7BFF / 0xFBFF, NaN -> 0x7BFF)"),
    Fault("dequantize_linear.e8m0_nan_as_number", "reads a float8e8m0 scale of 0xFF as 2**128, not NaN",
          _node(e8m0_nan=True), applies=lambda p: p.get("scale") == "float8e8m0",
          seen_in="not seen here; modelled as an e8m0 decoder 2**(bits - 127) with no NaN case"),
    Fault("dequantize_linear.e4m3fn_negative_nan_as_number", "decodes float8e4m3fn's negative NaN 0xFF as -480 (the "
          "exponent rule; 0x7F stays NaN)", _node(e4m3fn_negative_nan=True),
          applies=lambda p: p.get("x") == "float8e4m3fn",
          seen_in="IREE 3.13.0 llvm-cpu (measured here: 0xFF -> -48.0 with x_scale 0.1, as its Cast gives -480)"),
    Fault("dequantize_linear.zero_scale_folded", "a per-tensor x_scale of +-0 gives +0 for every element, the "
          "product folded by x * 0 -> 0 (due: -0 where x - x_zero_point and x_scale differ in sign, NaN for NaN x)",
          _node(zero_scale_folded=True), applies=lambda p: p.get("granularity") == "per-tensor",
          equivalent=lambda p: "a float8e8m0 scale has no zero" if p.get("scale") == "float8e8m0" else None,
          seen_in="tinygrad 0.14.0 CPU (measured here, --inputs initializers: its runner makes a 0-d initializer a "
                  "constant; test_dequantizelinear_scale_specials_int8_float32_opset13[0 .. 3], x_scale +-0: +0 for "
                  "every x, -0 due for x < x_zero_point with +0, x >= x_zero_point with -0; all 12 of its failing "
                  "value items there; fed, the expected -0)"),
    Fault("dequantize_linear.short_last_block_refused", "refuses blocked quantization whose last block is short "
          "(the axis not a multiple of block_size: the text's ceil(D / B) blocks)", _node(short_block_refused=True),
          may_refuse=True, applies=lambda p: p.get("granularity") == "blocked",
          seen_in="tinygrad 0.14.0 CPU (measured here, fed or not: 'shape mismatch: objects cannot be broadcast to a "
                  "single shape ((6, 2), (8, 2))', the scale repeated block_size times and not cut to the axis; "
                  "all 25 of its blocked DequantizeLinear errors)"),
    Fault("dequantize_linear.output_dtype_ignored", "leaves output_dtype unread: y in x_scale's type (the rule "
          "before DequantizeLinear-23)", _node(output_dtype_ignored=True),
          # output_dtype exists from 23; a float8e8m0 scale is no output type, so output_dtype is required there
          applies=lambda p: int(p.get("opset") or 0) >= 23 and p.get("scale") != "float8e8m0",
          equivalent=_output_dtype_named,
          seen_in="tract 0.23.9 (measured here: every DequantizeLinear-23 / 25 output_dtype float16 / bfloat16 "
                  "with a float32 scale returns float32)"),
)


def killed(fault: Fault, meta: dict, expected: list[np.ndarray], actual: list[np.ndarray]) -> bool:
    """Would the case's strict comparison fail the fault's outputs? Exact cases: faults.differs; ulp cases: an
    element more than `ulp` encodings away (-0 and +0 one point), or not matching NaN / Inf."""
    compare = meta.get("compare") or {}
    types = [dtypes.from_numpy(np.asarray(y).dtype) for y in expected]
    if compare.get("mode") != "ulp":
        return faults.differs(expected, actual, types, compare)
    n = int(compare["ulp"])
    for y, z, t in zip(expected, actual, types):
        if np.shape(y) != np.shape(z) or np.asarray(y).dtype != np.asarray(z).dtype:
            return True
        yv, zv = ref._values(y, t), ref._values(z, t)
        special = ~np.isfinite(yv) | ~np.isfinite(zv)
        if (special & ~((np.isnan(yv) & np.isnan(zv)) | (yv == zv))).any():
            return True
        fin = ~special
        if (np.abs(ref._ordered(yv[fin], t) - ref._ordered(zv[fin], t)) > n).any():
            return True
    return False
