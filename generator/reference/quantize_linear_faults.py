"""Fault models of ONNX QuantizeLinear: plausible wrong implementations, each the reference's computation with
one step changed (docs/design.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module
holds).

    reference: q = x / y_scale in P (y_scale's type or `precision`), operands rounded to P
               integer y: clip(round_half_even(q) + zero point)     float y: Cast(q + zero point, saturate)

Groups: "version=<QuantizeLinear version> y=<type> precision=<P>[ saturate=<0|1>]" (saturate for float8 outputs
only): what decides which faults can differ. A fault that cannot differ in a group says why (`equivalent`).
Faults that need a configuration (per-axis, blocked) the group's own cases may lack are killed by the witness
catalogue's cases (generator/witness/quantize_linear.py), which carry the same group key.

tinygrad 0.14.0's uint8 path (add_half_truncate, and add_half_truncate_constant_scale for a scale folded as a
constant) rounds by adding 0.4999999 in float32 and truncating; on every other output type it is the reference.

Every fault gives the reference's placeholders where the reference leaves an element undefined: no expectation
is compared there.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.faults import Fault, Refusal
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
              int32_before_clip=False, e5m2_round_overflow_nan=False, present_saturate_as_zero=False,
              fnuz_inf_from: int = 0, clamp_before_cast=False, add_half_truncate: str = "",
              int32_saturating=False, short_block_refused=False, fake_quantize=False,
              x_precision=False) -> list[np.ndarray]:
    """QuantizeLinear with the given deviations; the reference's output where it leaves an element undefined."""
    ref.validate(attrs, opset, list(input_types), [np.ndim(i) for i in inputs])
    x, s = np.asarray(inputs[0]), np.asarray(inputs[1])
    z = inputs[2] if len(inputs) > 2 else None
    z_t = input_types[2] if z is not None else None
    a = ref._attrs(attrs, opset)
    if short_block_refused and a["block_size"] and x.shape[normalize_axis(a["axis"], x.ndim)] % a["block_size"]:
        raise Refusal("a short last block: the scale repeated block_size times does not broadcast against x")
    if present_saturate_as_zero and "saturate" in attrs:  # the written value taken from the wrong field: 0
        a["saturate"] = False
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
    if x_precision and dtypes.get(input_types[0]).name in ("float16", "bfloat16"):
        p = dtypes.get(input_types[0])
    xp, sp = ref.to_precision(x64, p), ref.to_precision(s64, p)
    with np.errstate(all="ignore"):
        if add_half_truncate and out.name == "uint8":
            half = F32(0.5) if dtypes.get(input_types[0]).name == dtypes.get(input_types[1]).name == "float16" \
                else F32(0.4999999)
            v = _add_half_truncate(x64, s64, zp64, half, add_half_truncate)
            y = np.clip(v, out.int_min, out.int_max).astype(np.int64).astype(out.np_dtype)
        elif reciprocal:
            q = ref.to_precision(xp * ref.to_precision(1.0 / sp, p), p)
        else:
            q = ref.divide(xp, sp, p)
        if add_half_truncate and out.name == "uint8":
            pass
        elif fake_quantize and out.is_integer:
            y = _fake_quantize(x64, s64, zp64, out)
        elif out.is_integer:
            if int32_before_clip:  # C's float -> int32 conversion of x86: out of range (and NaN) -> INT32_MIN,
                rq = _round(q, rounding)  # then the zero point added in int32 arithmetic (wrapping)
                v = _wrap_int32(np.where(np.isnan(rq) | (np.abs(rq) >= 2.0**31), -(2.0**31), rq) + zp64)
            elif int32_saturating:  # Rust's `as i32`: saturating, NaN -> 0; then the zero point added wrapping
                rq = _round(q, rounding)
                v = _wrap_int32(np.where(np.isnan(rq), 0.0, np.clip(rq, -(2.0**31), 2.0**31 - 1)) + zp64)
            elif rounding == "parity":  # tinygrad's Tensor.round, each step and the sum in P (bfloat16 only)
                v = ref.to_precision(_parity_round(q, p) + zp64, p) if _parity_path(p, out) else np.rint(q) + zp64
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
            sat = True if saturate_ignored or clamp_before_cast else a["saturate"]
            if clamp_before_cast:  # min(max(v, -M), M): max(NaN, -M) is -M, as SSE's maxps with NaN first
                with np.errstate(invalid="ignore"):
                    v = np.minimum(np.where(np.isnan(v) | (v < -out.finite_max), -out.finite_max, v), out.finite_max)
            cast_opset = 24 if fnuz_inf_cast24 or (fnuz_inf_from and opset >= fnuz_inf_from) else opset
            y = ref._cast(v, "double", out, sat, cast_opset).outputs[0]
            if e5m2_round_overflow_nan and out.name == "float8e5m2" and not sat:
                y = _e5m2_round_overflow_nan(v, y, out)
    y = np.asarray(y).reshape(x.shape)
    keep = reference.mask()
    if keep.any():
        y = np.where(keep, y_ref, y) if not out.is_float else out.from_bits(
            np.where(keep, out.to_bits(y_ref), out.to_bits(y)))
    return [y]


F32 = np.float32


def _add_half_truncate(x64, s64, zp64, half, form: str) -> np.ndarray:
    """tinygrad 0.14.0's integer quantization in float32 (C promotes float16 operands): fed, float32(float32(
    float32(x / s) + zp) + half); with a constant scale ("constant"), fma(x, float32(1 / s), float32(zp + half))
    rounded once to float32 (clang contracts the multiply-add); then C's (int) conversion (trunc), x86's INT32_MIN for |v| >= 2**31 and NaN (float64
    integers returned)."""
    x, s, z = (np.asarray(a, dtype=np.float64).astype(F32) for a in (x64, s64, zp64))
    if form == "constant":
        v = _fma_f32(x, (F32(1) / s).astype(F32), (z + half).astype(F32))
    else:
        v = ((x / s).astype(F32) + z).astype(F32) + half
    v = np.asarray(v, dtype=F32).astype(np.float64)
    return np.where(np.isnan(v) | (np.abs(v) >= 2.0**31), -(2.0**31), np.trunc(np.nan_to_num(v)))


def _fake_quantize(x64, s64, zp64, out) -> np.ndarray:
    """OpenVINO's QuantizeLinear: x and y_scale converted to float32, then FakeQuantize over the input band
    il = float32(s * (lo - zp)), ih = float32(s * (hi - zp)) with 2**bits levels: lo for x <= min(il, ih), hi for
    x > max(il, ih) (a negative y_scale swaps the ends), else lo + rne(float32(float32(float32(x - il) /
    float32(ih - il)) * (hi - lo))), each step in float32: the zero point is inside the rounded value and the
    division is by the band, not by y_scale."""
    x, s, z = (np.asarray(a, dtype=np.float64).astype(F32) for a in (x64, s64, zp64))
    lo, hi = F32(out.int_min), F32(out.int_max)
    il, ih = (s * (lo - z)).astype(F32), (s * (hi - z)).astype(F32)
    t = ((((x - il).astype(F32) / (ih - il).astype(F32)).astype(F32)) * (hi - lo)).astype(F32)
    v = np.where(x <= np.minimum(il, ih), lo, np.where(x > np.maximum(il, ih), hi, lo + np.rint(t)))
    return np.nan_to_num(v.astype(np.float64)).astype(np.int64).astype(out.np_dtype)


def _parity_path(p, out) -> bool:
    """Where tinygrad 0.14.0 was measured rounding by Tensor.round: bfloat16 arithmetic, an integer y but uint8."""
    return p.name == "bfloat16" and out.is_integer and out.name != "uint8"


def _parity_round(q: np.ndarray, p) -> np.ndarray:
    """tinygrad's Tensor.round in P: ceil(q - 0.5) where (q > 0) == (trunc(q) is even), else floor(q + 0.5), with
    trunc(q) / 2, q - 0.5 and q + 0.5 each rounded to P (129 in bfloat16: 129.5 rounds to 130, so 130)."""
    with np.errstate(invalid="ignore"):
        half = ref.to_precision(np.trunc(q) / 2.0, p)
        even = np.trunc(half) == half
        return np.where((q > 0) == even, np.ceil(ref.to_precision(q - 0.5, p)), np.floor(ref.to_precision(q + 0.5, p)))


def _fma_f32(a, b, c) -> np.ndarray:
    """float32 a * b + c with one rounding (fmaf): a * b is exact in float64; the sum's float64 rounding error
    (TwoSum) decides a float32 tie the float64 sum lands on."""
    a, b, c = (np.asarray(t, dtype=np.float64) for t in (a, b, c))
    p = a * b
    s = p + c
    bp = s - p
    err = (p - (s - bp)) + (c - bp)
    f = s.astype(F32)
    g = np.nextafter(f, np.where(s > f, F32(np.inf), F32(-np.inf))).astype(F32)
    tie = np.isfinite(err) & (err != 0) & (s == (f.astype(np.float64) + g.astype(np.float64)) / 2)
    if tie.any():  # s is halfway between f32 neighbours: the exact sum lies on err's side
        lo, hi = np.minimum(f, g), np.maximum(f, g)
        f = np.where(tie, np.where(err > 0, hi, lo), f)
    return f


def _wrap_int32(v: np.ndarray) -> np.ndarray:
    """float64 integers (|v| < 2**33) wrapped into int32's range, as int32 addition does."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(v), np.mod(v + 2.0**31, 2.0**32) - 2.0**31, v)


def _e5m2_round_overflow_nan(v: np.ndarray, y: np.ndarray, out) -> np.ndarray:
    """float8e5m2 without saturation: a finite value that rounds up past the largest finite one but is below
    2**16 (FLT_MAX + ulp/2 <= |v| < 65536) gives NaN of its sign, as onnxruntime's Float8E5M2 constructor does
    (it ORs 0x7C, Inf, into the 0x7B it rounded up from: 0x7F)."""
    with np.errstate(invalid="ignore"):
        a = np.abs(np.asarray(v, np.float64))
        hit = np.isfinite(a) & (a >= 61440.0) & (a < 65536.0)
    if not hit.any():
        return y
    bits = out.to_bits(np.asarray(y)).astype(np.int64)
    bits = np.where(hit, np.where(np.signbit(v), 0xFF, 0x7F), bits)
    return out.from_bits(bits.astype(out.bits_dtype))


def _node(output_dtype_ignored=False, **deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        if output_dtype_ignored:  # y's type from the zero point, else uint8: QuantizeLinear-19's rule
            return _uint8_rule(inputs, {k: v for k, v in attrs.items() if k != "output_dtype"}, opset, input_types)
        return _quantize(inputs, attrs, opset, input_types, **deviation)
    fn.__doc__ = f"QuantizeLinear with the deviation {deviation} (quantize_linear_faults)."
    return fn


def _uint8_rule(inputs, attrs, opset, input_types) -> list[np.ndarray]:
    """The reference with y's type from the zero point or uint8; an infinite quotient, which the reference leaves
    undefined for an integer y, saturates as such an implementation's clamp does (a float y's case defines it)."""
    (y,) = _quantize(inputs, attrs, opset, input_types)
    out = dtypes.from_numpy(y.dtype)
    if not out.is_integer:
        return [y]
    a = ref._attrs(attrs, opset)
    s = expand(ref._values(np.asarray(inputs[1]), dtypes.get(input_types[1])), np.shape(inputs[0]), a["axis"],
               a["block_size"])
    with np.errstate(all="ignore"):
        q = ref._values(np.asarray(inputs[0]), dtypes.get(input_types[0])) / s
    return [np.where(np.isposinf(q), out.int_max, np.where(np.isneginf(q), out.int_min, y)).astype(y.dtype)]


def _not_uint8(params: dict) -> str | None:
    if params["y"] != "uint8":
        return "the fault changes only the uint8 path (tinygrad's): every other output is the reference's"
    return None


def _not_parity_path(params: dict) -> str | None:
    if params["precision"] != "bfloat16" or not dtypes.get(params["y"]).is_integer or params["y"] == "uint8":
        return ("the fault changes only an integer y other than uint8 at bfloat16 precision (the path tinygrad was "
                "measured on): its function is the reference here")
    return None


def _output_dtype_read(params: dict) -> str | None:
    if int(params["version"]) < 21:
        return "no output_dtype before QuantizeLinear-21: y's type is the zero point's or uint8 by the rule itself"
    if params["y"] == "uint8":
        return "y is uint8: the type the rule without output_dtype gives too"
    return None


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


def _x_type_may_differ(params: dict) -> str | None:
    if int(params["version"]) < 23:
        return "before QuantizeLinear-23 x and y_scale share one type: the division's precision is x's"
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


def _fnuz_at_23(params: dict) -> str | None:
    if params["y"] not in ("float8e4m3fnuz", "float8e5m2fnuz") or params.get("saturate") != 1:
        return "only FNUZ outputs with saturate=1 have the Inf row that changed in Cast-24"
    if int(params["version"]) != 23:
        return "the rule switched one opset early differs at version 23 only"
    return None


def _e5m2_nosaturate(params: dict) -> str | None:
    if params["y"] != "float8e5m2" or params.get("saturate") != 0:
        return "only float8e5m2 without saturation rounds a finite value to Inf"
    return None


def _saturate_one(params: dict) -> str | None:
    if params.get("saturate") != 1:
        return "no saturate=1 to read wrongly (no float8 output, or saturate=0, which the fault reads right)"
    return None


def _clamp_can_differ(params: dict) -> str | None:
    if params["y"] in ("float4e2m1", "float6e2m3", "float6e3m2"):
        return ("float4 / float6 conversions saturate (+-Inf too) and NaN -> them is open: clamping first changes "
                "no defined element")
    return _float_only(params)


FAULTS: tuple[Fault, ...] = (
    Fault("quantize_linear.round_half_away", "rounds x / y_scale half away from zero instead of to even",
          _node(rounding="half_away"), equivalent=_int_only,
          seen_in="not seen here; modelled as C's round() / std::round where nearbyint was meant"),
    Fault("quantize_linear.truncate", "truncates x / y_scale toward zero instead of rounding",
          _node(rounding="truncate"), equivalent=_int_only,
          seen_in="not seen here; modelled as a C cast (cvttps2dq) where a rounding conversion was meant"),
    Fault("quantize_linear.wrap", "wraps out-of-range results modulo the type instead of saturating",
          _node(wrap=True), equivalent=_int_only,
          seen_in="not seen here; modelled as a narrowing store without a clamp (pack instructions without "
                  "saturation)"),
    Fault("quantize_linear.zero_point_before_rounding", "rounds x / y_scale + y_zero_point instead of adding the "
          "zero point to the rounded quotient (ties move with an odd zero point)", _node(zp_before_round=True),
          equivalent=_int_only, seen_in="OpenVINO 2026.4 CPU (measured here: its ties with odd zero points)"),
    Fault("quantize_linear.int32_before_clip", "converts the rounded quotient to int32 before adding the zero point "
          "and saturating: quotients beyond int32 become INT32_MIN (x86's conversion)", _node(int32_before_clip=True),
          equivalent=_int_only,
          seen_in="onnx ReferenceEvaluator 1.23.2 (np.rint(x).astype(np.int32) + zero point in int32: -3e38 with "
                  "zero point -32768 -> 32767; measured here)"),
    Fault("quantize_linear.zero_point_before_rounding_float32", "both: rounds x / y_scale + y_zero_point, and "
          "divides in float32 whatever y_scale's type or `precision` says", _node(zp_before_round=True,
                                                                                divide_in_float32=True),
          equivalent=_int_only, seen_in="OpenVINO 2026.4 CPU (measured here: 72 of its 81 failing data sets; "
                                        "fake_quantize_band, its exact form, reproduces all 151 of 2026.4.1)"),
    Fault("quantize_linear.divide_in_float32", "divides in float32 whatever y_scale's type or `precision` says",
          _node(divide_in_float32=True), equivalent=_not_float32,
          seen_in="onnx ReferenceEvaluator 1.23 (numpy promotion), OpenVINO 2026.4 (measured here)"),
    Fault("quantize_linear.fake_quantize_band", "integer y as OpenVINO's FakeQuantize: x and y_scale in float32, "
          "y = lo + rne((x - il) / (ih - il) * (hi - lo)) over the band il = y_scale * (lo - zero point), ih = "
          "y_scale * (hi - zero point), each step rounded to float32, lo at or below the band and hi above it (a "
          "negative y_scale swaps the ends)",
          _node(fake_quantize=True), equivalent=_int_only,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: all 151 failing integer-output data sets of the family, "
                  "bit for bit, among them test_quantizelinear_x_float16_scale_float32_opset23's, where "
                  "zero_point_before_rounding_float32 misses 13 to 38 elements each, and scale_negative's swapped "
                  "ends; its ONNX frontend converts x and y_scale to float32 and builds FakeQuantize from the zero "
                  "point's band)"),
    Fault("quantize_linear.x_precision", "divides a float16 / bfloat16 x in x's own type (y_scale rounded to it) "
          "whatever y_scale's type or `precision` says", _node(x_precision=True), equivalent=_x_type_may_differ,
          seen_in="not seen here; modelled as a kernel templated on x's type alone. Issue 33 named it from "
                  "OpenVINO 2026.4.1's failures on test_quantizelinear_x_float16_scale_float32_opset23, which "
                  "fake_quantize_band reproduces instead (it divides in float32)"),
    Fault("quantize_linear.reciprocal", "multiplies x by the reciprocal of y_scale (rounded to P) instead of dividing",
          _node(reciprocal=True),
          seen_in="not seen here; modelled as the common x * (1 / scale) optimisation of vectorized kernels"),
    Fault("quantize_linear.axis_ignored", "applies a per-axis / blocked scale along axis 1 whatever `axis` says",
          _node(axis_ignored=True), equivalent=_per_axis_exists,
          seen_in="not seen here; modelled as a kernel written for NCHW's channel axis only"),
    Fault("quantize_linear.blocks_from_end", "counts blocks from the end of the axis (the short block first)",
          _node(blocks_from_end=True), equivalent=_blocked_exists,
          seen_in="not seen here; modelled as a block index computed from the end of the axis"),
    Fault("quantize_linear.saturate_ignored", "ignores saturate=0 for float8 outputs (always saturates)",
          _node(saturate_ignored=True), equivalent=_nosaturate,
          seen_in="not seen here; modelled as an implementation with the saturating conversion only"),
    Fault("quantize_linear.fnuz_inf_saturates", "maps +-Inf to +-FLT_MAX for FNUZ outputs with saturate=1 before "
          "opset 24 (Cast-24's row at every opset)", _node(fnuz_inf_cast24=True), equivalent=_fnuz_before_24,
          seen_in="onnxruntime 1.32, onnx ReferenceEvaluator 1.23 (measured here)"),
    Fault("quantize_linear.float_zero_point_ignored", "leaves a float output's zero point out of the sum",
          _node(float_zp_ignored=True), equivalent=_float_only,
          seen_in="onnxruntime 1.32, onnx ReferenceEvaluator 1.23 (measured here)"),
    Fault("quantize_linear.fnuz_inf_one_opset_early", "maps +-Inf to +-FLT_MAX for FNUZ outputs with saturate=1 "
          "from opset 23, one opset before Cast-24's row (an opset boundary switched early)",
          _node(fnuz_inf_from=23), equivalent=_fnuz_at_23,
          seen_in="not seen here; modelled on the Cast FNUZ +-Inf row switched on one opset early (issue 21)"),
    Fault("quantize_linear.e5m2_round_overflow_nan", "float8e5m2 with saturate=0: a quotient that rounds up past "
          "the largest finite value (61440 <= |q| < 65536) gives NaN instead of +-Inf",
          _node(e5m2_round_overflow_nan=True), equivalent=_e5m2_nosaturate,
          seen_in="onnxruntime 1.32.0 CPU (measured here: test_quantizelinear_float8e5m2_nosaturate_opset19 / 25, "
                  "61440 -> 0x7F; its Float8E5M2 constructor ORs 0x7C into the 0x7B it rounds up from)"),
    Fault("quantize_linear.present_saturate_as_zero", "reads a saturate attribute written in the model as 0 (the "
          "value taken from the wrong field): a present saturate=1 stops saturating",
          _node(present_saturate_as_zero=True), equivalent=_saturate_one,
          seen_in="not seen here; modelled as an attribute parser only ever run on models that leave the "
                  "default out (issue 21: explicit defaults)"),
    Fault("quantize_linear.clamp_before_cast", "clamps x / y_scale + y_zero_point to [-FLT_MAX, FLT_MAX] of a float "
          "output before converting it: always saturates, and a NaN becomes -FLT_MAX (max(NaN, -M) = -M)",
          _node(clamp_before_cast=True), equivalent=_clamp_can_differ,
          seen_in="OpenVINO 2026.4.1 CPU (measured here: float8e4m3fn / float8e5m2 outputs, NaN -> 0xFE / 0xFB, "
                  "saturate=0 ignored)"),
    Fault("quantize_linear.float_zero_point_ignored_e5m2_overflow_nan", "both: leaves a float output's zero point "
          "out of the sum, and float8e5m2 with saturate=0 rounds 61440 <= |q| < 65536 to NaN",
          _node(float_zp_ignored=True, e5m2_round_overflow_nan=True), equivalent=_e5m2_nosaturate,
          seen_in="onnxruntime 1.32.0 CPU (measured here: the float8e5m2 saturate=0 witnesses with a zero point of 1, "
                  "184319.98 / 3 -> 0x7B, 184320.02 / 3 -> 0x7F; both faults are its float8 kernel's)"),
    Fault("quantize_linear.reciprocal_clamp_float_zero_point_ignored", "all three on float outputs: multiplies x by "
          "the reciprocal of y_scale, leaves the zero point out, and clamps to [-FLT_MAX, FLT_MAX] before converting",
          _node(reciprocal=True, float_zp_ignored=True, clamp_before_cast=True),
          applies=lambda p: dtypes.get(p["y"]).is_float,  # OpenVINO's float path; its integer one is another
          seen_in="OpenVINO 2026.4.1 CPU (measured here: every float8e4m3fn witness data set of 19 .. 28 with a zero "
                  "point of 1 and y_scale 3: 7.1249995 -> 2.5, -0.65625 -> -0.21875)"),
    Fault("quantize_linear.output_dtype_ignored", "leaves output_dtype unread: without a zero point y is uint8 (the "
          "rule before QuantizeLinear-21)", _node(output_dtype_ignored=True), equivalent=_output_dtype_read,
          seen_in="tract 0.23.9 (measured here: every output_dtype without a zero point, int8 / int16 / uint4 / int2 / "
                  "float8e4m3fn / float4e2m1, returns uint8)"),
    Fault("quantize_linear.reciprocal_int32_saturating", "multiplies x by the reciprocal of y_scale (rounded to P), "
          "converts the rounded product to int32 saturating (NaN -> 0), adds the zero point wrapping in int32, then "
          "clamps: a product beyond int32 lands at the wrong end, and a subnormal y_scale's reciprocal is +Inf",
          _node(reciprocal=True, int32_saturating=True), equivalent=_int_only,
          seen_in="tract 0.23.9 (measured here, --inputs initializers: test_quantizelinear_scale_subnormal_opset13, "
                  "y_scale 2.8e-45 and zero point 3 give 0 where 3 .. 128 are due; uint8_opset25[2], 1e10 / 0.5 with "
                  "zero point 255 gives 0; int8_opset25[1], -3e38 with zero point -128 gives 127: Rust's saturating "
                  "`as i32`; all 39 of its failing value items that int32_before_clip, reciprocal or neither explain)"),
    Fault("quantize_linear.short_last_block_refused", "refuses blocked quantization whose last block is short (the "
          "axis not a multiple of block_size: the text's ceil(D / B) blocks)", _node(short_block_refused=True),
          equivalent=_blocked_exists, may_refuse=True,
          seen_in="tinygrad 0.14.0 CPU (measured here, fed or not: 'shape mismatch: objects cannot be broadcast to a "
                  "single shape', the scale repeated block_size times and not cut to the axis; all 21 of its blocked "
                  "QuantizeLinear errors)"),
    Fault("quantize_linear.add_half_truncate", "uint8: y = clip(int32(trunc(float32(float32(float32(x / y_scale) + "
          "zero point) + 0.4999999))), 0, 255) in float32 (0.5 when x and y_scale are float16): 1.5 -> 1, 2.5 -> 3; "
          "|v| >= 2**31 and NaN -> INT32_MIN, so 0", _node(add_half_truncate="fed"), equivalent=_not_uint8,
          seen_in="tinygrad 0.14.0 CPU, clang 19 (measured here, fed inputs: test_quantizelinear_uint8_opset25's "
                  "data set 0 gives 1 for 1.5 and 3 for 2.5)"),
    Fault("quantize_linear.bfloat16_parity_round", "bfloat16 precision, integer y but uint8: rounds x / y_scale by "
          "ceil(q - 0.5) where (q > 0) == (trunc(q) even), else floor(q + 0.5), each step and the zero point's sum "
          "rounded to bfloat16: 129 -> 130", _node(rounding="parity"), equivalent=_not_parity_path,
          seen_in="tinygrad 0.14.0 CPU, clang 19 (measured here: test_quantizelinear_bfloat16_x_opset19's data set 1, "
                  "x 129, y_scale 1, zero point -128 gives 2 instead of 1; its Tensor.round in bfloat16)"),
    Fault("quantize_linear.add_half_truncate_constant_scale", "uint8: y = clip(int32(trunc(fma(x, float32(1 / "
          "y_scale), float32(zero point + 0.4999999)))), 0, 255), the fma rounded once to float32 (0.5 when x and "
          "y_scale are float16): a constant scale's reciprocal and the rounding constant folded in",
          _node(add_half_truncate="constant"), equivalent=_not_uint8,
          seen_in="tinygrad 0.14.0 CPU, clang 19 (measured here, --inputs initializers: test_quantizelinear_uint8_opset25's "
                  "data set 4, y_scale 3: 4.5 -> 2 (the fed form's 1), 7.5 -> 3)"),
)
