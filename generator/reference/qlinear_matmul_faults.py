"""Fault models of ONNX QLinearMatMul-10 / -21: plausible wrong implementations, each the reference
(generator/reference/qlinear_matmul.py) with one deviation (generator/faults.py says what a fault module holds).

  requantization   QLinearConv's, from the one table both read (requantize_variants.REQUANT_FAULTS): float32
                   (onnxruntime's MLAS), float64, Q31 fixed point, y_zero_point before rounding, ties away from zero,
                   saturation before y_zero_point; the multiplier computed in the scales' own type (float16 /
                   bfloat16 at opset 21: onnx.reference); and the result converted to the output type without saturating
                   (wrapped modulo 256: ONNX's own reference and backend test data before onnx PR #7868)
  accumulation     raw a x b products summed in adjacent pairs along K with int16 saturation (x86 VPMADDUBSW), zero
                   points applied after; acc kept in int16 (wraps modulo 2**16); acc wrapped in int32 (equivalent on
                   every defined input)
  quantization     a's per-row zero point subtracted along a's columns, as numpy broadcasts an [M] vector against
                   [M, K] (refused where M != K); only element 0 of a per-row a_scale / a_zero_point, or of a
                   per-column b_scale / b_zero_point, used for every row / column
  vector tails     the last N % W output columns (W = 4, 8, 16; all when N < W) rounded half away from zero
  tinygrad         zero points and scales applied as numpy broadcasts them as stored, the requantization
                   T(acc) * ((a_scale * b_scale) * (1 / y_scale)) with every step in the scales' type T
  refusals         a per-row a, a per-column b or a 1-D operand refused (the text defines them)
  shapes           batch dimensions broadcast by flattening each operand's batch and indexing it modulo its count
                   (right only where the broadcast axes lead); a 1-D operand's promoted axis kept in y

Groups (group_key): "<shape class> <a quantization> <b quantization>", from case.json "params":
  shape class   1d (a or b 1-D) | 2d | batched (batch dimensions, each operand's batch, leading ones aside, the
                output's trailing ones) | broadcast (an operand's batch broadcast along an axis after one of its own
                of several elements: [2, 1] against [2, 3])
  a             per_tensor | per_row;  b  per_tensor | per_column
Every fault but the refusals gives the reference on float8 data (READING_FLOAT8): they model integer kernels.
These decide whether a fault can differ at all (the per-row and per-column faults need those vectors, the batch
fault a partial broadcast, the 1-D fault a 1-D operand); `equivalent(params)` gives the proof where it cannot.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.faults import Fault, Refusal
from generator.reference import qlinear_matmul as ref
from generator.reference.qlinear_conv_faults import TAIL_WIDTHS
from generator.reference.requantize_variants import REQUANT_FAULTS, _requantize

_NOT_SEEN = "not seen; modelled as "
SHAPE_CLASSES = ("1d", "2d", "batched", "broadcast")


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def shape_class(a_shape, b_shape) -> str:
    """The shape class of a case (module docstring)."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    if len(a_shape) == 1 or len(b_shape) == 1:
        return "1d"
    if len(a_shape) == 2 and len(b_shape) == 2:
        return "2d"
    batch = tuple(np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))
    for own in (a_shape[:-2], b_shape[:-2]):
        rest = tuple(own)
        while rest and rest[0] == 1:  # leading ones: a broadcast that flat indexing modulo the count gets right
            rest = rest[1:]
        if rest and rest != batch[len(batch) - len(rest):]:
            return "broadcast"
    return "batched"


def _parts(p: dict) -> tuple[str, bool, bool]:
    return (shape_class(p["a_shape"], p["b_shape"]), p.get("a_quant") == "per_row",
            p.get("b_quant") == "per_column")


def key_of(shape: str, per_row: bool, per_column: bool) -> str:
    return f"{shape} {'per_row' if per_row else 'per_tensor'} {'per_column' if per_column else 'per_tensor'}"


def group_key(meta: dict) -> str:
    """The configuration class of a case (module docstring)."""
    return key_of(*_parts(meta.get("params") or {}))


def all_groups() -> list[tuple[str, bool, bool]]:
    """Every class that can exist (a 1-D a has no rows, a 1-D b no columns: the 1d class has no per-row and
    per-column pair)."""
    return [(s, r, c) for s in SHAPE_CLASSES for r in (False, True) for c in (False, True)
            if not (s == "1d" and r and c)]


# ---------------------------------------------------------------------------------------
# the reference with one deviation
# ---------------------------------------------------------------------------------------
def int16_pairs(op: ref.Operands) -> np.ndarray:
    """acc as an x86 VPMADDUBSW kernel computes it: raw products a * b of K indices 2j, 2j + 1 added with int16
    saturation (an odd K's last index alone: MLAS pads K with zeros to a multiple of 4; matmul_integer_faults says
    where its AVX2 packing pairs them), the pair sums in int32, the zero points applied after, exactly:
        acc = sum_pairs sat16(a0 b0 + a1 b1) - b_zp * sum_k a - a_zp * sum_k b + K * a_zp * b_zp"""
    a, b = op.a.astype(np.int64), op.b.astype(np.int64)
    k = a.shape[-1]
    prods = a[..., :, :, None] * b[..., None, :, :]  # [..., M, K, N]
    if k % 2:
        prods = np.concatenate([prods, np.zeros(prods.shape[:-2] + (1, prods.shape[-1]), np.int64)], axis=-2)
    pairs = np.clip(prods[..., 0::2, :] + prods[..., 1::2, :], -(2**15), 2**15 - 1)
    raw = pairs.sum(axis=-2)
    az, bz = op.a_zero_point, op.b_zero_point
    return (raw - bz * a.sum(axis=-1, keepdims=True) - az * b.sum(axis=-2, keepdims=True) + k * az * bz).astype(
        np.float64)


def _batch_modulo(op: ref.Operands) -> np.ndarray:
    """acc with each operand's batch flattened and the output's flat batch index f reading its element f % count."""
    batch = np.broadcast_shapes(op.a.shape[:-2], op.b.shape[:-2])
    n = int(np.prod(batch))
    da = (op.a.astype(np.float64) - op.a_zero_point).reshape((-1,) + op.a.shape[-2:])
    db = (op.b.astype(np.float64) - op.b_zero_point).reshape((-1,) + op.b.shape[-2:])
    idx = np.arange(n)
    return np.matmul(da[idx % len(da)], db[idx % len(db)]).reshape(tuple(batch) + (op.a.shape[-2], op.b.shape[-1]))


def _in_scale_type(acc: np.ndarray, xs: float, ws: float, ys: float, yz: int, to, st: np.dtype) -> np.ndarray:
    """round_half_even(acc * c) + y_zero_point, saturated, with c = (a_scale * b_scale) / y_scale computed in the
    scales' own type (each operation rounded to float / float16 / bfloat16) and the product in float64 (numpy's
    int32 array times a float scale array, as onnx.reference writes C * (a_scale * b_scale / y_scale))."""
    c = float((np.asarray(xs, st) * np.asarray(ws, st)) / np.asarray(ys, st))
    v = np.clip(np.asarray(acc, np.float64) * c, to.int_min - yz, to.int_max - yz)
    return (np.rint(v).astype(np.int64) + yz).astype(to.np_dtype)


def _first(v: np.ndarray) -> np.ndarray:
    return np.full(v.shape, v.reshape(-1)[0], dtype=v.dtype)


def _matmul(inputs: list[np.ndarray], *, requant: str = "exact", pairs16: bool = False, wrap16: bool = False,
            wrap32: bool = False, a_zp_columns: bool = False, a_first: bool = False, b_first: bool = False,
            batch_modulo: bool = False, one_d_kept: bool = False, refuse: str | None = None,
            tail: int | None = None, k0_zero: bool = False) -> list[np.ndarray]:
    """The reference QLinearMatMul with the given deviation; shape checks are the reference's."""
    if len(inputs) != 8:
        raise ValueError(f"QLinearMatMul takes 8 inputs, got {len(inputs)}")
    if refuse == "per_row" and np.size(inputs[1]) > 1 or refuse == "per_column" and np.size(inputs[4]) > 1:
        raise Refusal(f"{refuse} quantization: a scale of more than one element")
    if refuse == "one_d" and (np.ndim(inputs[0]) == 1 or np.ndim(inputs[3]) == 1):
        raise Refusal("a 1-D operand")
    outcome = ref.qlinear_matmul(*inputs)
    if not outcome.defined or ref.has_float8(inputs):
        return list(outcome.outputs)  # undefined (the reference's placeholder), or float8: no integer kernel
    op = ref.operands(*inputs)
    if k0_zero and op.a.shape[-1] == 0:  # the empty product's y left as allocated (zeroed), y_zero_point not added
        y = np.zeros_like(outcome.outputs[0])
        return [y]
    if a_first:
        op.a_zero_point, op.a_scale = _first(op.a_zero_point), _first(op.a_scale)
    if b_first:
        op.b_zero_point, op.b_scale = _first(op.b_zero_point), _first(op.b_scale)
    if a_zp_columns and op.a_zero_point.ndim:  # per row: [..., M, 1] read as [..., 1, M]
        if op.a.shape[-2] != op.a.shape[-1]:  # numpy: [..., 1, M] against [..., M, K] needs M == K
            raise Refusal(f"a_zero_point of {op.a.shape[-2]} rows does not broadcast along a's {op.a.shape[-1]} "
                          "columns")
        op.a_zero_point = np.swapaxes(op.a_zero_point, -1, -2)
    acc, bound = ref.accumulate(op)
    if batch_modulo:
        acc = _batch_modulo(op)
    if pairs16 and np.asarray(inputs[0]).dtype == np.uint8 and np.asarray(inputs[3]).dtype == np.int8:
        acc = int16_pairs(op)  # VPMADDUBSW multiplies u8 by s8; MLAS's other pairs (U8U8: VPMADDWD) are exact
        bound = max(bound, int(np.abs(acc).max(initial=0)))
    if wrap16:
        acc = (acc.astype(np.int64) + 2**15) % 2**16 - 2**15
    if wrap32:
        acc = (acc.astype(np.int64) + 2**31) % 2**32 - 2**31
    acc = np.clip(acc, ref.INT32_MIN, ref.INT32_MAX)  # pairs16 / zero-point faults stay in the reference's domain
    bound = min(bound, 2**31)
    ys, yz, to = op.y_scale, op.y_zero_point, op.y_type
    if requant == "scale_type":
        st = np.asarray(inputs[1]).dtype
        y = ref.requantize_each(acc, op, lambda v, xs, ws: _in_scale_type(v, xs, ws, ys, yz, to, st))
    else:
        y = ref.requantize_each(acc, op, lambda v, xs, ws: _requantize(v.reshape(1, 1, -1), bound, xs, [ws], ys, yz,
                                                                       to, requant).reshape(-1))
    if tail is not None:  # the last N % tail columns (all when N < tail) rounded half away by scalar code
        n = y.shape[-1]
        k = n % tail if n >= tail else n
        if k:
            away = ref.requantize_each(acc, op, lambda v, xs, ws: _requantize(v.reshape(1, 1, -1), bound, xs, [ws], ys,
                                                                              yz, to, "half_away").reshape(-1))
            y[..., n - k:] = away[..., n - k:]
    return [y if one_d_kept or not op.squeeze else np.squeeze(y, op.squeeze)]


def _round_even_as_tinygrad(v: np.ndarray) -> np.ndarray:
    """tinygrad's Tensor.round (half to even) step by step in v's own type: where (v > 0) == (trunc(v) / 2 is an
    integer), ceil(v - 0.5), else floor(v + 0.5); each sum rounded to the type (in bfloat16 v - 0.5 of an integer
    above 128 rounds back to an integer)."""
    t = v.dtype.type
    half_int = np.trunc(np.trunc(v) / t(2.0))
    odd = (v > 0) == (half_int == np.trunc(v) / t(2.0))
    return np.where(odd, np.ceil(v - t(0.5)), np.floor(v + t(0.5))).astype(v.dtype)


def as_stored_stepwise(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """QLinearMatMul as tinygrad 0.14.0's onnx frontend computes it (_qlinearop_quantized): the zero points
    subtracted as numpy broadcasts them against a and b as stored, acc = matmul of the two (a 1-D operand's axis
    gone), then (out * prod(scales) / out_scale) as its fused kernel evaluates it: acc * c with
    c = (a_scale * b_scale) * (1 / y_scale), the scales as stored broadcast against acc, rounded half to even
    (Tensor.round), + y_zero_point, clamped and cast; every arithmetic step in the scales' type T, rounded to T
    (acc converted to T first; the division a multiplication by the reciprocal, measured: (acc * s) / y_s in
    bfloat16 is one off on ties). Raises Refusal where a broadcast fails."""
    outcome = ref.qlinear_matmul(*inputs)
    if not outcome.defined or ref.has_float8(inputs):
        return list(outcome.outputs)  # undefined (the reference's placeholder), or float8: no integer kernel
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = (np.asarray(v) for v in inputs)
    st = a_s.dtype
    to = dtypes.from_numpy(y_zp.dtype)
    try:
        da = a.astype(np.int64) - a_zp.astype(np.int64)
        db = b.astype(np.int64) - b_zp.astype(np.int64)
        acc = np.matmul(da, db)
        one = np.ones((), st)
        with np.errstate(all="ignore"):  # the scales' type overflows where the implementation's does
            c = ((a_s.astype(st) * b_s.astype(st)).astype(st) * (one / y_s.astype(st)).astype(st)).astype(st)
            v = (acc.astype(np.float64).astype(np.float32).astype(st) * c).astype(st)
    except ValueError as exc:  # numpy and tinygrad broadcast alike
        raise Refusal(f"the quantization parameters do not broadcast as stored: {exc}") from exc
    with np.errstate(all="ignore"):
        r = _round_even_as_tinygrad(v)
        r = (r + y_zp.astype(st)).astype(st)
        y = np.clip(r.astype(np.float64), to.int_min, to.int_max)
    return [y.astype(to.np_dtype)]


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _matmul(inputs, **deviation)
    fn.__doc__ = f"QLinearMatMul with the deviation {deviation} (generator.reference.qlinear_matmul_faults)."
    return fn


# ---------------------------------------------------------------------------------------
# equivalence proofs, per class
# ---------------------------------------------------------------------------------------
def _unless_per_row(p: dict) -> str | None:
    return None if _parts(p)[1] else "a_scale and a_zero_point are per tensor: there is no row vector to misread"


def _unless_per_column(p: dict) -> str | None:
    return None if _parts(p)[2] else "b_scale and b_zero_point are per tensor: there is no column vector to misread"


def _unless_broadcast(p: dict) -> str | None:
    if _parts(p)[0] == "broadcast":
        return None
    return ("every operand's batch is the output's (leading ones aside) or one element: flat index modulo its "
            "count is the broadcast index")


def _unless_1d(p: dict) -> str | None:
    return None if _parts(p)[0] == "1d" else "neither operand is 1-D: no axis is promoted"


_WRAP32_PROOF = ("a defined input has acc within int32 (outside is undefined [reference: UNDEF_ACC_INT32] and goes to "
                 "probe/); integer sums computed modulo 2**32 equal the exact sum whenever that lies in int32")

_REQUANT_SEEN = {
    "requant_float32": "onnxruntime (MLAS MlasRequantizeOutput / QGemm output processor: float32 scale, "
                       "float(acc) * scale); consistent with onnxruntime 1.32.0 on the float tie witnesses (measured "
                       "here: 8 data sets, 255 expected, 254 returned)",
    "requant_float64": "a double requantization as in onnxruntime's reference kernels",
    "requant_fixed_point": "gemmlowp / TFLite kernels (QuantizeMultiplier, MultiplyByQuantizedMultiplier)",
    "zero_point_before_rounding": "onnx.reference op_qlinear_matmul (np.rint(D + y_zero_point); onnx#6169); "
                                  "consistent with onnx-reference 1.23.2 and OpenVINO 2026.4.1 on tie data sets "
                                  "(measured here)",
    "round_half_away": _NOT_SEEN + "C roundf / std::round in a requantization loop",
    "saturate_before_zero_point": _NOT_SEEN + "a requantization that clamps before adding the zero point",
}

FAULTS: tuple[Fault, ...] = tuple(
    Fault(f"qlinear_matmul.{name}", what, _node(requant=how), seen_in=_REQUANT_SEEN[name])
    for name, how, what in REQUANT_FAULTS
) + (
    Fault("qlinear_matmul.requant_scale_type",
          "computes the multiplier (a_scale * b_scale) / y_scale in the scales' own type (float32, float16 or "
          "bfloat16: two roundings there), acc * c in float64, rounded half to even", _node(requant="scale_type"),
          seen_in="onnx.reference op_qlinear_matmul (C * (a_scale * b_scale / y_scale) on the scale arrays); "
                  "consistent with onnx-reference 1.23.2 on bfloat16 scales (measured here, with y_zero_point added "
                  "before rounding)"),
    Fault("qlinear_matmul.requant_unsaturated",
          "converts round(acc * c) + y_zero_point to the output type without saturating (wraps modulo 256)",
          _node(requant="unsaturated"),
          seen_in="onnx.reference op_qlinear_matmul and ONNX's test_qlinearmatmul_2D/3D_int8 expected data before "
                  "onnx PR #7868 (onnx#7835, onnx#6169: -236 written as 20); emmtrix/emx-onnx-cgen#735; IREE's 6 "
                  "failing qlinearmatmul ONNX tests ([1, -75, 20] vs [1, -75, -128], iree-org/iree#24378) and the "
                  "qlinearmatmul 2D/3D int8 tests excluded from onnxruntime's runs of ONNX's backend tests ('result "
                  "diff', as issue 23 reports) are that data"),
    Fault("qlinear_matmul.int16_pair_saturation",
          "adds the raw a * b products of K indices 2j, 2j + 1 with int16 saturation (x86 VPMADDUBSW: a uint8, b "
          "int8; other type pairs exact), zero points applied after", _node(pairs16=True),
          seen_in="onnxruntime#16105 (MLAS QgemmU8X8KernelAvx2, x86-64 AVX2 without VNNI; QLinearMatMul and "
                  "QLinearConv share the U8S8 QGEMM); oneDNN#518 (cblas_gemm_s8u8s32 capped at 32767)",
          cpu="x86-64 without VNNI"),
    Fault("qlinear_matmul.accumulator_wrap16", "keeps acc in int16 (wraps modulo 2**16)", _node(wrap16=True),
          seen_in="microsoft/BitNet#629 (ggml_vec_dot_i2_i8_s: vpmaddubsw results summed in int16 lanes; latent); "
                  "modelled as an int16 accumulator", cpu="x86-64 AVX2 (vpmaddubsw in int16 lanes)"),
    Fault("qlinear_matmul.accumulator_wrap32", "accumulates acc in int32 with wraparound", _node(wrap32=True),
          equivalent=lambda p: _WRAP32_PROOF,
          seen_in=_NOT_SEEN + "every int32 accumulator (equivalent on every defined input)"),
    Fault("qlinear_matmul.a_zero_point_per_column",
          "subtracts a per-row a_zero_point along a's columns ([M] or [..., M, 1] read as [..., 1, M], as numpy "
          "broadcasts an [M] vector against [M, K]; refused where M != K)", _node(a_zp_columns=True),
          equivalent=_unless_per_row, may_refuse=True,
          seen_in="onnx.reference op_qlinear_matmul (A -= a_zero_point with an [M] vector); consistent with "
                  "onnx-reference 1.23.2 on the per-row witnesses (measured here)"),
    Fault("qlinear_matmul.a_zero_point_per_column_zero_point_before_rounding",
          "both: a per-row a_zero_point subtracted along a's columns, and y_zero_point added before rounding",
          _node(a_zp_columns=True, requant="zero_point_first"), equivalent=_unless_per_row, may_refuse=True,
          seen_in="onnx-reference 1.23.2 (measured here: test_qlinearmatmul_witness_2d_per_row_per_tensor[3], a "
                  "tie's data with a_zero_point [0, 1, 2]: y[:, 0] 4 4 6 for 3 1 1; both are op_qlinear_matmul's, "
                  "np.rint(D + y_zero_point) after A -= a_zero_point)"),
    Fault("qlinear_matmul.per_row_first", "uses a_scale[0] and a_zero_point[0] for every row of a",
          _node(a_first=True), equivalent=_unless_per_row,
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor slot of a per-row model"),
    Fault("qlinear_matmul.per_column_first", "uses b_scale[0] and b_zero_point[0] for every column of b",
          _node(b_first=True), equivalent=_unless_per_column,
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor slot of a per-column model"),
    Fault("qlinear_matmul.per_row_refused", "refuses a per-row a_scale / a_zero_point (more than one element)",
          _node(refuse="per_row"), equivalent=_unless_per_row, may_refuse=True,
          seen_in="onnxruntime 1.32.0 (quantize_linear_matmul.cc:78: 'QLinearMatmul : input zero point must be a "
                  "scalar or 1D tensor of size 1'), OpenVINO 2026.4.1 ONNX frontend ('Scalar value can't be derived "
                  "from a node with [3]'): measured here"),
    Fault("qlinear_matmul.per_column_refused", "refuses a per-column b_scale / b_zero_point (more than one element)",
          _node(refuse="per_column"), equivalent=_unless_per_column, may_refuse=True,
          seen_in="OpenVINO 2026.4.1 ONNX frontend ('Scalar value can't be derived from a node with [5]'): measured "
                  "here"),
    Fault("qlinear_matmul.one_d_refused", "refuses a 1-D a or b", _node(refuse="one_d"), equivalent=_unless_1d,
          may_refuse=True,
          seen_in="OpenVINO 2026.4.1 ONNX frontend ('axis 1 out of tensor range [-1, 0]'): measured here"),
    Fault("qlinear_matmul.batch_broadcast_modulo",
          "broadcasts batch dimensions by flattening each operand's batch and reading element f % count for the "
          "output's flat batch index f", _node(batch_modulo=True), equivalent=_unless_broadcast,
          seen_in=_NOT_SEEN + "a batched GEMM loop with one stride per operand (right only for leading broadcast)"),
    *(Fault(f"qlinear_matmul.column_tail{w}_round_half_away",
            f"rounds ties half away from zero in the last N % {w} output columns (all of them when N < {w}): the "
            "vectorized loop rounds to even, its scalar remainder with std::round", _node(tail=w),
            seen_in=_NOT_SEEN + f"a {w}-lane requantization loop whose scalar remainder calls std::round (issue 21's "
                                "vector-tail axis; QLinearConv's width_tail faults)")
      for w in TAIL_WIDTHS),
    Fault("qlinear_matmul.as_stored_stepwise_in_scale_type",
          "both: zero points and a_scale * b_scale applied as numpy broadcasts them as stored (a per-row [M] a_zero_point "
          "along a's columns, a per-row a_scale along y's columns; an [M, 1] a_scale against a 1-D b's [M] product: "
          "an [M, M] y), and the requantization T(acc) * c with c = (a_scale * b_scale) * (1 / y_scale), rounded "
          "half to even, + y_zero_point, every step rounded to the scales' type T (tinygrad's fused kernel)",
          lambda inputs, attrs, opset, input_types: as_stored_stepwise(inputs), may_refuse=True,
          seen_in="tinygrad 0.14.0 onnx frontend (_qlinearop_quantized: (out * prod(scales) / out_scale).round() + "
                  "out_zero_point; CPU, clang 19; measured: reproduces its 20 failing data sets of the suite (fed) and "
                  "its 4 errors on per-row models (a broadcast error): test_qlinearmatmul_config_002_random[0] and "
                  "[1] (a_scale [2, 1], b [17]: y (2, 2), its diagonal the expected y), "
                  "test_qlinearmatmul_scales_bfloat16[0] and [1] (every step in bfloat16), the 16 per-row witness "
                  "data sets with a 1-D a_zero_point and a_scale (test_qlinearmatmul_witness_2d_per_row_per_tensor"
                  "[0]), test_qlinearmatmul_per_row_a[0] (a_scale [4] against y [4, 3])"),
    Fault("qlinear_matmul.k_0_zero", "K = 0: y is 0 everywhere instead of y_zero_point (y zero-initialized and the "
          "empty sum's requantization skipped)", _node(k0_zero=True),
          seen_in="onnxruntime 1.32.0 CPU, partly (measured here: for K = 0 it leaves y unwritten, test_qlinearmatmul_k_0 "
                  "gives 0 for y_zero_point 76 / 235 in a fresh process and an earlier allocation's bytes, 123 17 0 "
                  "..., after other runs: this fault is the zero-initialized form of that; with a per-column b_scale "
                  "and a batch it dies of SIGFPE instead)"),
    Fault("qlinear_matmul.one_d_axis_kept", "keeps the promoted axis of a 1-D operand in y ([1, N] / [M, 1])",
          _node(one_d_kept=True), equivalent=_unless_1d,
          seen_in=_NOT_SEEN + "a 1-D operand reshaped to 2-D and the result not reshaped back"),
)
