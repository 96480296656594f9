"""Fault models of ONNX QuantizeLinear: plausible wrong implementations, each the reference's computation with
one step changed (DESIGN.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module
holds).

    reference: q = x / y_scale in P (y_scale's type or `precision`), operands rounded to P
               integer y: clip(round_half_even(q) + zero point)     float y: Cast(q + zero point, saturate)

Groups: "version=<QuantizeLinear version> y=<type> precision=<P>[ saturate=<0|1>]" (saturate for float8 outputs
only): what decides which faults can differ. A fault that cannot differ in a group says why (`equivalent`).
Faults that need a configuration (per-axis, blocked) the group's own cases may lack are killed by the witness
catalogue's cases (generator/witness/quantize_linear.py), which carry the same group key.

Every fault gives the reference's placeholders where the reference leaves an element undefined: no expectation
is compared there.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.faults import Fault
from generator.reference import quantize_linear as ref
from generator.reference.quant_axes import expand, normalize_axis


def group_key(meta: dict) -> str:
    p = meta.get("params") or {}
    key = f"version={p.get('version')} y={p.get('y')} precision={p.get('precision')}"
    if p.get("saturate") is not None:
        key += f" saturate={p.get('saturate')}"
    return key


def _expand(param, shape, axis, block, from_end: bool) -> np.ndarray:
    if not from_end or not block:
        return expand(param, shape, axis, block)
    i = normalize_axis(axis, len(shape))
    full = np.repeat(param, block, axis=i)
    return full.take(range(full.shape[i] - shape[i], full.shape[i]), axis=i)  # the short block first


def _round(v: np.ndarray, how: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        if how == "half_away":
            return np.copysign(np.floor(np.abs(v) + 0.5), v)
        if how == "truncate":
            return np.trunc(v)
        return np.rint(v)


def _quantize(inputs, attrs, opset, input_types, *, rounding="even", wrap=False, zp_before_round=False,
              divide_in_float32=False, reciprocal=False, axis_ignored=False, blocks_from_end=False,
              saturate_ignored=False, fnuz_inf_cast24=False, float_zp_ignored=False,
              int32_before_clip=False) -> list[np.ndarray]:
    """QuantizeLinear with the given deviations; the reference's output where it leaves an element undefined."""
    ref.validate(attrs, opset, list(input_types), [np.ndim(i) for i in inputs])
    x, s = np.asarray(inputs[0]), np.asarray(inputs[1])
    z = inputs[2] if len(inputs) > 2 else None
    z_t = input_types[2] if z is not None else None
    a = ref._attrs(attrs, opset)
    sig = ref.check_types(opset, input_types[0], input_types[1], z_t, a["output_dtype"], a["precision"])
    out, p = sig.out, sig.precision
    reference = ref.quantize_linear(x, s, z, x_type=input_types[0], scale_type=input_types[1], zero_point_type=z_t,
                                    opset=opset, **a)
    (y_ref,) = reference.outputs
    if not p.is_float or p.nan_style == dtypes.E8M0:
        return [y_ref]
    axis = 1 if axis_ignored else a["axis"]
    block = a["block_size"]
    x64 = ref._values(x, dtypes.get(input_types[0]))
    s64 = _expand(ref._values(s, dtypes.get(input_types[1])), x.shape, axis, block, blocks_from_end)
    zp64 = np.zeros(x.shape) if z is None else _expand(ref._values(z, dtypes.get(z_t)), x.shape, axis, block,
                                                       blocks_from_end)
    if divide_in_float32:
        p = dtypes.get("float")
    xp, sp = ref.to_precision(x64, p), ref.to_precision(s64, p)
    with np.errstate(all="ignore"):
        if reciprocal:
            q = ref.to_precision(xp * ref.to_precision(1.0 / sp, p), p)
        else:
            q = ref.divide(xp, sp, p)
        if out.is_integer:
            if int32_before_clip:  # C's float -> int32 conversion of x86: out of range (and NaN) -> INT32_MIN
                rq = _round(q, rounding)
                v = np.where(np.isnan(rq) | (np.abs(rq) >= 2.0**31), -(2.0**31), rq) + zp64
            else:
                v = _round(q + zp64, rounding) if zp_before_round else _round(q, rounding) + zp64
            v = np.where(np.isnan(v), 0.0, v)
            if wrap:
                span = float(out.int_max - out.int_min + 1)
                finite = np.abs(v) < 2.0**62
                wrapped = np.mod(np.where(finite, v, 0.0) - out.int_min, span) + out.int_min
                v = np.where(finite, wrapped, np.clip(v, out.int_min, out.int_max))
            else:
                v = np.clip(v, out.int_min, out.int_max)
            y = v.astype(np.int64).astype(out.np_dtype)
        else:
            v = q if float_zp_ignored else ref.to_precision(q + zp64, p)
            sat = True if saturate_ignored else a["saturate"]
            y = ref._cast(v, "double", out, sat, 24 if fnuz_inf_cast24 else opset).outputs[0]
    y = np.asarray(y).reshape(x.shape)
    keep = reference.mask()
    if keep.any():
        y = np.where(keep, y_ref, y) if not out.is_float else out.from_bits(
            np.where(keep, out.to_bits(y_ref), out.to_bits(y)))
    return [y]


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _quantize(inputs, attrs, opset, input_types, **deviation)
    fn.__doc__ = f"QuantizeLinear with the deviation {deviation} (quantize_linear_faults)."
    return fn


def _int_only(params: dict) -> str | None:
    if dtypes.get(params["y"]).is_float:
        return "a float output has no integer rounding or saturation step: the fault's path is the reference's"
    return None


def _float_only(params: dict) -> str | None:
    if not dtypes.get(params["y"]).is_float:
        return "an integer output: the fault changes only the float conversion"
    return None


def _not_float32(params: dict) -> str | None:
    if params["precision"] == "float":
        return "the division's precision is float32 already"
    if int(params["version"]) < 23:
        return ("before 23 no sentence names the division's precision: elements a float32 division changes are "
                "probes, so on defined elements the fault is the reference")
    return None


def _per_axis_exists(params: dict) -> str | None:
    if int(params["version"]) < 13:
        return "QuantizeLinear-10 has per-tensor quantization only: no axis to ignore"
    return None


def _blocked_exists(params: dict) -> str | None:
    if int(params["version"]) < 21:
        return "no blocked quantization before QuantizeLinear-21"
    return None


def _nosaturate(params: dict) -> str | None:
    if params.get("saturate") != 0:
        return "saturate is 1 (or no float8 output): always saturating is what the reference does"
    return None


def _fnuz_before_24(params: dict) -> str | None:
    if params["y"] not in ("float8e4m3fnuz", "float8e5m2fnuz") or params.get("saturate") != 1:
        return "only FNUZ outputs with saturate=1 have the Inf row that changed in Cast-24"
    if int(params["version"]) >= 24:
        return "Cast-24's row is this version's"
    return None


FAULTS: tuple[Fault, ...] = (
    Fault("quantize_linear.round_half_away", "rounds x / y_scale half away from zero instead of to even",
          _node(rounding="half_away"), equivalent=_int_only),
    Fault("quantize_linear.truncate", "truncates x / y_scale toward zero instead of rounding",
          _node(rounding="truncate"), equivalent=_int_only),
    Fault("quantize_linear.wrap", "wraps out-of-range results modulo the type instead of saturating",
          _node(wrap=True), equivalent=_int_only),
    Fault("quantize_linear.zero_point_before_rounding", "rounds x / y_scale + y_zero_point instead of adding the "
          "zero point to the rounded quotient (ties move with an odd zero point)", _node(zp_before_round=True),
          equivalent=_int_only, seen_in="OpenVINO 2026.4 CPU (measured here: its ties with odd zero points)"),
    Fault("quantize_linear.int32_before_clip", "converts the rounded quotient to int32 before adding the zero point "
          "and saturating: quotients beyond int32 become INT32_MIN (x86's conversion)", _node(int32_before_clip=True),
          equivalent=_int_only, seen_in="onnx ReferenceEvaluator 1.23 (np.rint(x).astype(np.int32); measured here)"),
    Fault("quantize_linear.zero_point_before_rounding_float32", "both: rounds x / y_scale + y_zero_point, and "
          "divides in float32 whatever y_scale's type or `precision` says", _node(zp_before_round=True,
                                                                                divide_in_float32=True),
          equivalent=_int_only, seen_in="OpenVINO 2026.4 CPU (measured here: 72 of its 81 failing data sets)"),
    Fault("quantize_linear.divide_in_float32", "divides in float32 whatever y_scale's type or `precision` says",
          _node(divide_in_float32=True), equivalent=_not_float32,
          seen_in="onnx ReferenceEvaluator 1.23 (numpy promotion), OpenVINO 2026.4 (measured here)"),
    Fault("quantize_linear.reciprocal", "multiplies x by the reciprocal of y_scale (rounded to P) instead of dividing",
          _node(reciprocal=True)),
    Fault("quantize_linear.axis_ignored", "applies a per-axis / blocked scale along axis 1 whatever `axis` says",
          _node(axis_ignored=True), equivalent=_per_axis_exists),
    Fault("quantize_linear.blocks_from_end", "counts blocks from the end of the axis (the short block first)",
          _node(blocks_from_end=True), equivalent=_blocked_exists),
    Fault("quantize_linear.saturate_ignored", "ignores saturate=0 for float8 outputs (always saturates)",
          _node(saturate_ignored=True), equivalent=_nosaturate),
    Fault("quantize_linear.fnuz_inf_saturates", "maps +-Inf to +-FLT_MAX for FNUZ outputs with saturate=1 before "
          "opset 24 (Cast-24's row at every opset)", _node(fnuz_inf_cast24=True), equivalent=_fnuz_before_24,
          seen_in="onnxruntime 1.32, onnx ReferenceEvaluator 1.23 (measured here)"),
    Fault("quantize_linear.float_zero_point_ignored", "leaves a float output's zero point out of the sum",
          _node(float_zp_ignored=True), equivalent=_float_only,
          seen_in="onnxruntime 1.32, onnx ReferenceEvaluator 1.23 (measured here)"),
)
