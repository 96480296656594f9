"""Fault models of ONNX DynamicQuantizeLinear-11: plausible wrong implementations, each the reference's
float32 function body with one step changed (DESIGN.md, "Fault models, witnesses, diagnosis";
generator/faults.py says what a fault module holds).

    reference: X_Min = min(min(x), 0)   X_Max = max(max(x), 0)   Scale = (X_Max - X_Min) / 255
               Zeropoint = Cast(Round(Clip(0 - X_Min / Scale, 0, 255)))
               y = saturate(Round(x / Scale) + Zeropoint)            (float32 steps, Round ties to even)

Faults: both Round steps half away from zero; the range not widened to include 0; Scale as
range * float32(1 / 255); the zero point not clipped (its uint8 output then wraps); y as x * float32(1 / Scale);
y as x * 255 / range; and the last two but one together, which is what OpenVINO's CPU plugin computes (its
ONNX frontend's graph, with the division by the constant 255 turned into a multiplication).

Groups: the operator has no attribute and one version here, so there is one group per opset,
"opset=<n>": every fault can differ in it (generator/witness/dynamic_quantize_linear.py has the witnesses).
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


def group_key(meta: dict) -> str:
    return f"opset={meta.get('opset')}"


def _round(v: np.ndarray, half_away: bool) -> np.ndarray:
    """Round float32 values to integers (float64 result): ties to even, or away from zero."""
    v = np.asarray(v, dtype=np.float64)  # exact: float32 values, and v + 0.5 below is exact or an integer already
    if half_away:
        return np.copysign(np.floor(np.abs(v) + 0.5), v)
    return np.rint(v)


def _dql(x: np.ndarray, *, half_away: bool = False, widen: bool = True, scale_reciprocal: bool = False,
         clip_zero_point: bool = True, y_by: str = "divide") -> list[np.ndarray]:
    """The function body with the given deviation, float32 step by step as the reference does."""
    x = np.asarray(x, dtype=F32)
    reference = ref.dynamic_quantize_linear(x)
    if not reference.defined:
        return list(reference.outputs)
    with np.errstate(all="ignore"):
        x_min, x_max = F32(np.min(x)), F32(np.max(x))
        if widen:
            x_min, x_max = min(x_min, F32(0)), max(x_max, F32(0))
        x_range = F32(x_max - x_min)
        scale = F32(x_range * F32(F32(1) / F32(255))) if scale_reciprocal else F32(x_range / F32(255))
        initial = F32(F32(0) - F32(x_min / scale))
        zp_fp = np.clip(initial, F32(0), F32(255)) if clip_zero_point else initial
        zp = _round(zp_fp, half_away)
        zp = 0.0 if not np.isfinite(zp) else float(zp)
        if y_by == "reciprocal":
            q = x * F32(F32(1) / scale)
        elif y_by == "range":
            q = F32(x * F32(255)) / x_range
        else:
            q = x / scale
        q = _round(np.asarray(q, dtype=F32), half_away)
    q = np.nan_to_num(q, nan=0.0)
    y = np.clip(q + zp, 0.0, 255.0).astype(np.uint8)
    zp_out = np.array(int(zp) % 256 if not clip_zero_point else int(np.clip(zp, 0, 255)), dtype=np.uint8)
    return [y, np.array(scale, dtype=F32), zp_out]


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _dql(inputs[0], **deviation)
    fn.__doc__ = f"DynamicQuantizeLinear with the deviation {deviation} (dynamic_quantize_linear_faults)."
    return fn


FAULTS: tuple[Fault, ...] = (
    Fault("dynamic_quantize_linear.round_half_away",
          "rounds the zero point and y half away from zero instead of to even (std::round)",
          _node(half_away=True), seen_in="MNN and gemmlowp-style ChooseQuantizationParams (std::round of the zero point)"),
    Fault("dynamic_quantize_linear.range_not_widened",
          "uses min(x) and max(x) as they are, not widened to include 0", _node(widen=False)),
    Fault("dynamic_quantize_linear.scale_reciprocal",
          "computes y_scale as range * float32(1 / 255) instead of range / 255", _node(scale_reciprocal=True),
          seen_in="OpenVINO 2026.4 CPU (measured: docs/quantization.md); MNN's ONNX converter (1.0f / 255.0f)"),
    Fault("dynamic_quantize_linear.zero_point_unclipped",
          "rounds the zero point without clipping it to [0, 255] (the uint8 output wraps)",
          _node(clip_zero_point=False)),
    Fault("dynamic_quantize_linear.y_reciprocal",
          "computes y from x * float32(1 / y_scale) instead of x / y_scale", _node(y_by="reciprocal")),
    Fault("dynamic_quantize_linear.y_from_range",
          "computes y from float32(x * 255) / range instead of x / y_scale", _node(y_by="range"),
          seen_in="OpenVINO ONNX frontend (quantize_linear: x * quant_range_span / x_span)"),
    Fault("dynamic_quantize_linear.scale_reciprocal_y_from_range",
          "both: y_scale as range * float32(1 / 255), y from float32(x * 255) / range",
          _node(scale_reciprocal=True, y_by="range"),
          seen_in="OpenVINO 2026.4 CPU (measured: reproduces 75 of its 90 failing data sets of the default suite)"),
)
