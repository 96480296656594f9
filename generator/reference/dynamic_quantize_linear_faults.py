"""Fault models of ONNX DynamicQuantizeLinear-11: plausible wrong implementations, each the reference's
float32 function body with one step changed (docs/design.md, "Fault models, witnesses, diagnosis";
generator/faults.py says what a fault module holds).

    reference: X_Min = min(min(x), 0)   X_Max = max(max(x), 0)   Scale = (X_Max - X_Min) / 255
               Zeropoint = Cast(Round(Clip(0 - X_Min / Scale, 0, 255)))
               y = saturate(Round(x / Scale) + Zeropoint)            (float32 steps, Round ties to even)

Faults: both Round steps half away from zero; the range not widened to include 0; Scale as
range * float32(1 / 255); the zero point not clipped (its uint8 output then wraps); y as x * float32(1 / Scale);
y as x * 255 / range; and the last two but one together, which is what OpenVINO's CPU plugin computes (its
ONNX frontend's graph, with the division by the constant 255 turned into a multiplication); and
divide_by_range_then_255, tinygrad 0.14.0's: y_scale as range * float32(1 / 255), the zero point and y as
float32(float32(v / range) * 255) (v = -X_Min, x).

Vector tails (generator/axes.py): min_max_skip_tail<W> reduces min / max over the whole W-element vectors only
(n - n % W elements of the flattened x; every element when n < W, the short-input scalar path), a vectorized
reduction whose remainder loop is missing; y_tail_round_half_away rounds the last n % 8 elements of y (all of
them when n < 8) half away from zero, a vectorized quantization loop whose scalar remainder uses std::round.

Groups: the operator has no attribute and one version (DynamicQuantizeLinear-11, the one onnx.defs knows), so
there is one group, "opset=11", for every model opset that resolves to it (12 and the newest included: the
opset-boundary axis runs the same operator there): every fault can differ in it
(generator/witness/dynamic_quantize_linear.py has the witnesses).
The zero point's clip only matters when the float32 steps push -X_Min / Scale beyond 255, which needs a
subnormal Scale (for a normal Scale the quotient is within 255 * 2**-23 of a value in [0, 255]); subnormal
scales are defined (IEEE gradual underflow), so the group holds such inputs.

An input the reference calls undefined (empty, NaN, Scale 0, NaN zero point or quotient) gets the reference's
placeholders from every fault: no expectation is compared there.
"""

from __future__ import annotations

import numpy as np

from generator.faults import Fault
from generator.reference import dynamic_quantize_linear as ref

F32 = np.float32


SINCE_VERSION = 11  # DynamicQuantizeLinear's one version in ai.onnx (onnx.defs)
TAIL_WIDTHS = (4, 8, 16, 32)  # SIMD widths in float32 lanes: SSE / NEON, AVX2, AVX-512, AVX-512 unrolled x2
_NOT_SEEN = "not seen; modelled as "


def group_key(meta: dict) -> str:
    """One group per operator version: every opset >= 11 resolves to DynamicQuantizeLinear-11."""
    opset = meta.get("opset")
    return f"opset={SINCE_VERSION if isinstance(opset, int) and opset >= SINCE_VERSION else opset}"


def _round(v: np.ndarray, half_away: bool) -> np.ndarray:
    """Round float32 values to integers (float64 result): ties to even, or away from zero."""
    v = np.asarray(v, dtype=np.float64)  # exact: float32 values, and v + 0.5 below is exact or an integer already
    if half_away:
        return np.copysign(np.floor(np.abs(v) + 0.5), v)
    return np.rint(v)


def _whole_vectors(x: np.ndarray, width: int) -> np.ndarray:
    """The elements a min / max reduction without its remainder loop reads: the first n - n % width of the
    flattened x, or all of them when n < width (no whole vector: the scalar path)."""
    flat = x.reshape(-1)
    return flat if flat.size < width else flat[:flat.size - flat.size % width]


def _flushed(v):
    """float32 subnormals as zeros of their sign (FTZ on a result, DAZ on an operand)."""
    v = np.asarray(v, dtype=F32)
    return np.where(np.abs(v) < np.finfo(F32).tiny, np.copysign(F32(0), v), v).astype(F32)


def _dql(x: np.ndarray, *, half_away: bool = False, widen: bool = True, scale_reciprocal: bool = False,
         clip_zero_point: bool = True, y_by: str = "divide", reduce_width: int = 0,
         tail_half_away: int = 0, zp_by: str = "divide", flush: bool = False) -> list[np.ndarray]:
    """The function body with the given deviation, float32 step by step as the reference does."""
    x = np.asarray(x, dtype=F32)
    reference = ref.dynamic_quantize_linear(x)
    if not reference.defined:
        return list(reference.outputs)
    if flush:
        return _dql_flushed(x)
    with np.errstate(all="ignore"):
        seen = _whole_vectors(x, reduce_width) if reduce_width else x
        x_min, x_max = F32(np.min(seen)), F32(np.max(seen))
        if widen:
            x_min, x_max = min(x_min, F32(0)), max(x_max, F32(0))
        x_range = F32(x_max - x_min)
        scale = F32(x_range * F32(F32(1) / F32(255))) if scale_reciprocal else F32(x_range / F32(255))
        if zp_by == "range_then_255":  # float32(float32(-X_Min / range) * 255)
            initial = F32(F32(F32(0) - x_min) / x_range) * F32(255)
        elif zp_by == "reciprocal":  # -X_Min * float32(1 / y_scale): inf for a subnormal y_scale
            initial = F32(F32(0) - F32(x_min * F32(F32(1) / scale)))
        else:
            initial = F32(F32(0) - F32(x_min / scale))
        zp_fp = np.clip(initial, F32(0), F32(255)) if clip_zero_point else initial
        zp = _round(zp_fp, half_away)
        zp = 0.0 if not np.isfinite(zp) else float(zp)
        if y_by == "reciprocal":
            q = x * F32(F32(1) / scale)
        elif y_by == "range_then_255":  # float32(float32(x / range) * 255)
            q = np.asarray(x / x_range, dtype=F32) * F32(255)
        elif y_by == "range":
            q = F32(x * F32(255)) / x_range
        elif y_by == "fake_quantize":  # round(fma(x, 255 / range, -X_Min * (255 / range))): the zero point inside
            k = F32(F32(255) / x_range)
            v = np.asarray(x, np.float64) * np.float64(k) + np.float64(F32(-x_min * k))
            q = np.clip(np.rint(v), 0.0, 255.0)
        else:
            q = x / scale
        q32 = np.asarray(q, dtype=F32)
        q = _round(q32, half_away)
        if tail_half_away:  # the scalar remainder of the quantization loop rounds half away from zero
            flat, tail = q.reshape(-1), q32.size % tail_half_away if q32.size >= tail_half_away else q32.size
            if tail:
                flat[flat.size - tail:] = _round(q32.reshape(-1)[flat.size - tail:], True)
    q = np.nan_to_num(q, nan=0.0)
    y = np.clip(q + (0.0 if y_by == "fake_quantize" else zp), 0.0, 255.0).astype(np.uint8)
    zp_out = np.array(int(zp) % 256 if not clip_zero_point else int(np.clip(zp, 0, 255)), dtype=np.uint8)
    return [y, np.array(scale, dtype=F32), zp_out]


def _dql_flushed(x: np.ndarray) -> list[np.ndarray]:
    """The function body with subnormal operands read as 0 and subnormal results flushed to 0 (FTZ / DAZ) at every
    float32 step; a y_scale flushed to 0 then gives NaN / Inf quotients: NaN + zero point stays NaN and becomes 0,
    +-Inf saturates, as a float -> uint8 conversion with a clamp does."""
    with np.errstate(all="ignore"):
        x = _flushed(x)
        x_min, x_max = min(F32(np.min(x)), F32(0)), max(F32(np.max(x)), F32(0))
        scale = _flushed(_flushed(x_max - x_min) / F32(255))
        initial = _flushed(F32(0) - _flushed(x_min / scale))
        zp = np.rint(np.nan_to_num(np.clip(initial, F32(0), F32(255)), nan=0.0))
        q = np.rint(np.asarray(_flushed(x / scale), dtype=np.float64))
        y = np.clip(np.nan_to_num(q + zp, nan=0.0), 0.0, 255.0).astype(np.uint8)
    return [y, np.array(scale, dtype=F32), np.array(int(zp), dtype=np.uint8)]


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _dql(inputs[0], **deviation)
    fn.__doc__ = f"DynamicQuantizeLinear with the deviation {deviation} (dynamic_quantize_linear_faults)."
    return fn


FAULTS: tuple[Fault, ...] = (
    Fault("dynamic_quantize_linear.round_half_away",
          "rounds the zero point and y half away from zero instead of to even (std::round)",
          _node(half_away=True),
          seen_in="MNN and gemmlowp-style ChooseQuantizationParams (std::round of the zero point; read in their "
                  "sources, not measured here)"),
    Fault("dynamic_quantize_linear.range_not_widened",
          "uses min(x) and max(x) as they are, not widened to include 0", _node(widen=False),
          seen_in=_NOT_SEEN + "the textbook asymmetric quantization without the spec's Min(x_min, 0) / Max(x_max, 0) "
                              "(a range that need not hold 0)"),
    Fault("dynamic_quantize_linear.scale_reciprocal",
          "computes y_scale as range * float32(1 / 255) instead of range / 255", _node(scale_reciprocal=True),
          seen_in="OpenVINO 2026.4 CPU (measured: docs/quantization.md); MNN's ONNX converter (1.0f / 255.0f)"),
    Fault("dynamic_quantize_linear.zero_point_unclipped",
          "rounds the zero point without clipping it to [0, 255] (the uint8 output wraps)",
          _node(clip_zero_point=False),
          seen_in=_NOT_SEEN + "a kernel that leaves out the body's Clip because a normal y_scale never needs it"),
    Fault("dynamic_quantize_linear.y_reciprocal",
          "computes y from x * float32(1 / y_scale) instead of x / y_scale", _node(y_by="reciprocal"),
          seen_in=_NOT_SEEN + "the usual vectorized QuantizeLinear (one reciprocal, a multiply per element); "
                              "onnxruntime 1.32 and OpenVINO 2026.4 measured here do not do it"),
    Fault("dynamic_quantize_linear.y_from_range",
          "computes y from float32(x * 255) / range instead of x / y_scale", _node(y_by="range"),
          seen_in="OpenVINO ONNX frontend (quantize_linear: x * quant_range_span / x_span)"),
    Fault("dynamic_quantize_linear.scale_reciprocal_y_from_range",
          "both: y_scale as range * float32(1 / 255), y from float32(x * 255) / range",
          _node(scale_reciprocal=True, y_by="range"),
          seen_in="OpenVINO 2026.4 CPU (measured: reproduces 75 of its 90 failing data sets of the default suite)"),
) + tuple(
    Fault(f"dynamic_quantize_linear.min_max_skip_tail{w}",
          f"reduces min / max over whole {w}-element vectors only: the last n % {w} elements are left out "
          f"(all n read when n < {w})", _node(reduce_width=w),
          seen_in=_NOT_SEEN + f"a {w}-lane vectorized ReduceMin / ReduceMax whose remainder loop is missing (issue 21: "
                              "no tensor had its extreme in a partial last vector)")
    for w in TAIL_WIDTHS
) + (
    Fault("dynamic_quantize_linear.zero_point_reciprocal_y_from_range",
          "y_scale as range * float32(1 / 255), the zero point from -X_Min * float32(1 / y_scale) (inf, so 255, for "
          "a subnormal y_scale), y from float32(x * 255) / range", _node(scale_reciprocal=True, zp_by="reciprocal",
                                                                         y_by="range"),
          seen_in="OpenVINO 2026.4.1 CPU (measured here: 3 data sets of the default suite no other model explained, "
                  "two of them with a subnormal y_scale)"),
    Fault("dynamic_quantize_linear.fake_quantize_fma",
          "y_scale as range * float32(1 / 255); y = round(fma(x, float32(255 / range), -X_Min * float32(255 / "
          "range))), the zero point added before rounding (a FakeQuantize), clipped to [0, 255]",
          _node(scale_reciprocal=True, zp_by="reciprocal", y_by="fake_quantize"),
          seen_in="OpenVINO 2026.4.1 CPU (measured here: all_positive's data set 2; OpenVINO lowers quantization to "
                  "FakeQuantize)"),
) + (
    Fault("dynamic_quantize_linear.y_tail_round_half_away",
          "rounds the last n % 8 elements of y (all when n < 8) half away from zero: the vectorized loop rounds "
          "to even, its scalar remainder with std::round", _node(tail_half_away=8),
          seen_in=_NOT_SEEN + "an AVX2 quantization loop (cvtps2dq, ties to even) whose scalar remainder calls "
                              "std::round (ties away), as MNN / gemmlowp-style scalar code does",
          cpu="the vector width (AVX2 8 lanes; AVX-512 and NEON leave other remainders)"),
    Fault("dynamic_quantize_linear.flush_subnormals",
          "flushes subnormal float32 operands and results to zero (FTZ / DAZ) at every step: a subnormal x reads as "
          "0, a subnormal y_scale is 0", _node(flush=True),
          seen_in="IREE 3.13 llvm-cpu (measured here: scale_subnormal, the 1e-40 scalars, y_scale 0 for every "
                  "subnormal range / 255)"),
    Fault("dynamic_quantize_linear.divide_by_range_then_255",
          "y_scale as range * float32(1 / 255); the zero point from float32(float32(-X_Min / range) * 255) and y "
          "from float32(float32(x / range) * 255), each rounded to even",
          _node(scale_reciprocal=True, zp_by="range_then_255", y_by="range_then_255"),
          seen_in="tinygrad 0.14.0 CPU, clang 19 (measured here: every DynamicQuantizeLinear item of the suite "
                  "reproduced bit for bit; mixed's data set 1: x = 1.0 -> 255 instead of 254)"),
)
