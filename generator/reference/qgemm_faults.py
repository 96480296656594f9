"""Fault models of com.microsoft QGemm-1: plausible wrong implementations, each the reference
(generator/reference/qgemm.py) with one deviation (generator/faults.py says what a fault module holds).

  requantization  the one table QLinearConv's and QLinearMatMul's read (requantize_variants.REQUANT_FAULTS: float32
                  as onnxruntime's MLAS output processor, float64, Q31 fixed point, y_zero_point before rounding,
                  ties away from zero, saturation before y_zero_point), with x_scale = alpha * a_scale (exact in
                  float64) and the exact acc + C; the result wrapped instead of saturated; truncation toward zero
  alpha           ignored (1); applied after requantization (round(alpha * round(acc c / alpha))); C's scale taken
                  as a_scale * b_scale (alpha on the product only: Gemm's alpha A B + C with C at the product's scale)
  C               its scale taken as y_scale (added to the rounded result; a float output: added unscaled);
                  requantized on its own and added after rounding
  transposition   transA / transB ignored (refused where the shapes then disagree)
  per column      b_zero_point[0] / b_scale[0] for every column; a b_scale and b_zero_point of different shapes
                  refused (onnxruntime)
  accumulation    raw u8 x s8 products added in pairs with int16 saturation (x86 VPMADDUBSW: qlinear_matmul_faults'
                  int16_pairs)
  vector tails    the last N % W output columns (W = 4, 8, 16; all when N < W) rounded half away from zero
  float output    Y rounded through float16
  K = 0           Y left zero (onnxruntime leaves it unwritten)

Groups (group_key): "<float | quantized> <b per_tensor | per_column> <c | no_c>" from case.json "params" (output
type, b_scale / b_zero_point shapes, C's shape). The requantization faults do not apply to a float output, the float16
one not to a quantized output; a per-column fault is equivalent where b_scale and b_zero_point are one value, a C
fault where C is omitted. A float output is judged within the dot-product bound of its compare spec (`killed`).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from types import SimpleNamespace

import numpy as np

from generator import dot_bound, dtypes
from generator.faults import Fault, Refusal
from generator.interpret import compile_model, run_program
from generator.reference import lookup as reference_lookup
from generator.reference import qgemm as ref
from generator.reference.matmul_nbits_faults import Outputs, killed
from generator.reference.qlinear_conv_faults import TAIL_WIDTHS
from generator.reference.qlinear_matmul_faults import int16_pairs
from generator.reference.requantize_variants import REQUANT_FAULTS, _requantize

__all__ = ["FAULTS", "group_key", "killed", "run"]
_NOT_SEEN = "not seen; modelled as "


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def parts(p: dict) -> tuple[bool, bool, bool]:
    """(quantized output, b per column, C given) of a case's params."""
    per_column = any(int(np.prod(p.get(k) or [1])) > 1 for k in ("b_scale_shape", "b_zero_point_shape"))
    return p.get("y_type", "float") != "float", per_column, p.get("c_shape") is not None


def key_of(quantized: bool, per_column: bool, c: bool) -> str:
    return f"{'quantized' if quantized else 'float'} {'per_column' if per_column else 'per_tensor'} " \
           f"{'c' if c else 'no_c'}"


def group_key(meta: dict) -> str:
    """The configuration class of a case (module docstring)."""
    return key_of(*parts(meta.get("params") or {}))


def all_groups() -> list[tuple[bool, bool, bool]]:
    return [(q, pc, c) for q in (False, True) for pc in (False, True) for c in (False, True)]


# ---------------------------------------------------------------------------------------
# the reference with one deviation
# ---------------------------------------------------------------------------------------
def _first(v: np.ndarray) -> np.ndarray:
    return np.asarray(v).reshape(-1)[:1].reshape(())


def _round_exact(v: np.ndarray, how: str) -> np.ndarray:
    """round of float64 values: half to even ("even"), half away from zero ("away")."""
    return np.rint(v) if how == "even" else np.sign(v) * np.floor(np.abs(v) + 0.5)


def _qgemm(inputs: list, attrs: dict, *, requant: str = "exact", alpha_one: bool = False, alpha_after: bool = False,
           c_without_alpha: bool = False, c_y_scale: bool = False, c_after_round: bool = False,
           ignore: str | None = None, b_zp_first: bool = False, b_scale_first: bool = False, pairs16: bool = False,
           tail: int | None = None, float16: bool = False, refuse_mixed: bool = False,
           k0_zero: bool = False) -> list[np.ndarray]:
    """The reference QGemm with the given deviation."""
    attrs = dict(attrs)
    if refuse_mixed and np.shape(inputs[4]) != np.shape(inputs[5] if len(inputs) > 5 and inputs[5] is not None
                                                        else inputs[4]):
        raise Refusal("b_scale and b_zero_point of different shapes")
    if alpha_one:
        attrs["alpha"] = 1.0
    if ignore:
        attrs[ignore] = 0
    try:
        outcome = ref.qgemm(inputs, attrs)
    except ValueError as exc:  # transA / transB ignored: the operands no longer fit
        raise Refusal(str(exc)) from exc
    if not outcome.defined:
        return list(outcome.outputs)
    op = ref.operands(inputs, attrs)
    if k0_zero and op.a.shape[1] == 0:  # the empty product: Y left as allocated (zeroed), C and y_zero_point unused
        return [np.zeros_like(outcome.outputs[0])]
    if b_zp_first:
        op.b_zero_point = _first(op.b_zero_point)
    if b_scale_first:
        op.b_scale = _first(op.b_scale)
    acc = ref.accumulate(op)
    if pairs16 and np.asarray(inputs[0]).dtype == np.uint8 and np.asarray(inputs[3]).dtype == np.int8:
        ns = SimpleNamespace(a=op.a, b=op.b, a_zero_point=op.a_zero_point, b_zero_point=op.b_zero_point)
        acc = int16_pairs(ns).astype(np.int64)
    c = op.c
    if op.y_type is None:  # float output
        s = np.float64(op.alpha) * op.a_scale * np.asarray(op.b_scale, np.float64)
        if c_without_alpha:
            x = (op.alpha * acc.astype(np.float64) + c) * (op.a_scale * np.asarray(op.b_scale, np.float64))
        elif c_y_scale:  # no y_scale: C added as it is
            x = acc.astype(np.float64) * s + c
        else:
            x = (acc + c).astype(np.float64) * s
        with np.errstate(over="ignore"):
            y = x.astype(np.float16) if float16 else x
        return [np.asarray(y).astype(np.float32)]
    ws = np.broadcast_to(np.asarray(op.b_scale, np.float64), (op.c.shape[1],)).tolist()
    to, yz = op.y_type, op.y_zero_point
    xs = float(np.float64(op.alpha) * op.a_scale)  # exact: two float32 significands fit a float64's

    def exact_y(total: np.ndarray, x_scale: float = xs, how: str = "exact", zp: int = yz, t=to) -> np.ndarray:
        bound = max(1, int(np.abs(total).max(initial=0)))
        return _requantize(np.clip(total, ref.INT32_MIN, ref.INT32_MAX), bound, x_scale, ws, op.y_scale, zp, t, how)

    if c_without_alpha or alpha_after or c_after_round or c_y_scale:
        wide = dtypes.get("int32")  # an unsaturated integer result, then the fault's own last steps
        if c_without_alpha:  # x = a_scale * b_scale * (alpha * acc + C), exactly
            mult = [Fraction(*ref.multiplier(1.0, op.a_scale, w, op.y_scale)) for w in ws]
            q = _round_each(lambda i, j: (Fraction(op.alpha) * int(acc[i, j]) + int(c[i, j])) * mult[j], acc.shape)
            return [np.clip(q + yz, to.int_min, to.int_max).astype(to.np_dtype)]
        if alpha_after:  # requantized without alpha, then times alpha and rounded again (half to even, exactly)
            q0 = exact_y(acc + c, float(op.a_scale), zp=0, t=wide)
            q = _round_each(lambda i, j: Fraction(op.alpha) * int(q0[i, j]), acc.shape)
            return [np.clip(q + yz, to.int_min, to.int_max).astype(to.np_dtype)]
        q = exact_y(acc, zp=0, t=wide).astype(np.int64)
        q = q + (c if c_y_scale else exact_y(c, zp=0, t=wide).astype(np.int64))
        return [np.clip(q + yz, to.int_min, to.int_max).astype(to.np_dtype)]
    total = acc + c
    if requant == "truncate":
        v = total.astype(np.float64) * (xs * np.asarray(ws)) / op.y_scale
        return [np.clip(np.trunc(v) + yz, to.int_min, to.int_max).astype(to.np_dtype)]
    y = exact_y(total, how=requant)
    if tail is not None:
        n = y.shape[-1]
        k = n % tail if n >= tail else n
        if k:
            y[..., n - k:] = exact_y(total, how="half_away")[..., n - k:]
    return [y]


def _round_each(value, shape: tuple) -> np.ndarray:
    """round_half_even(value(i, j)) (a Fraction) of each element, exactly, as int64 (clipped far outside any 8-bit
    type)."""
    out = np.empty(shape, np.int64)
    for i, j in np.ndindex(shape):
        out[i, j] = max(-2**40, min(2**40, round(value(i, j))))  # round() of a Fraction: ties to even
    return out


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _qgemm(inputs, attrs, **deviation)
    fn.__doc__ = f"QGemm with the deviation {deviation} (generator.reference.qgemm_faults)."
    return fn


_compiled: list = [None, None]


def run(fault: Fault, model, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The fault's outputs on one data set (its node function in the reference interpreter), with the data set's
    inputs for the dot-product bound (`killed`, matmul_nbits_faults')."""
    if _compiled[0] is not model:
        _compiled[:] = [model, compile_model(model, reference_lookup)]
    program = _compiled[1]
    steps = [dataclasses.replace(st, fn=fault.fn) if st.node.op_type == "QGemm" else st for st in program.steps]
    out = Outputs(run_program(dataclasses.replace(program, steps=steps), inputs))
    out.inputs = dot_bound.operands(model, inputs)
    return out


# ---------------------------------------------------------------------------------------
# equivalence proofs and applicability, per class
# ---------------------------------------------------------------------------------------
def _quantized(p: dict) -> bool:
    return parts(p)[0]


def _float(p: dict) -> bool:
    return not parts(p)[0]


def _unless_per_column(p: dict) -> str | None:
    return None if parts(p)[1] else "b_scale and b_zero_point are one value each: there is no column vector to misread"


def _unless_c(p: dict) -> str | None:
    return None if parts(p)[2] else "C is omitted (a scalar 0): its scale and where it is added change nothing"


def _unless_k0_differs(p: dict) -> str | None:
    quantized, _, c = parts(p)
    return None if quantized or c else "a float output without C is 0 for K = 0: the zeros the fault leaves"


_REQUANT_SEEN = {
    "requant_float32": "onnxruntime (quant_gemm.cc ComputeOutputScale: (alpha * a_scale * b_scale[n]) / y_scale in "
                       "float, MLAS_QGEMM_REQUANT_OUTPUT_PROCESSOR: float(acc + C) * scale); consistent with "
                       "onnxruntime 1.32.0 on the float tie witnesses (measured here: test_qgemm_witness_quantized_"
                       "per_tensor_no_c_float_tie and its three siblings, 254 expected, 255 returned)",
    "requant_float64": _NOT_SEEN + "a double requantization",
    "requant_fixed_point": _NOT_SEEN + "gemmlowp / TFLite kernels (QuantizeMultiplier) applied to QGemm",
    "zero_point_before_rounding": _NOT_SEEN + "onnx.reference's QLinearMatMul (np.rint(D + y_zero_point)) applied to "
                                              "QGemm",
    "round_half_away": _NOT_SEEN + "C roundf / std::round in a requantization loop",
    "saturate_before_zero_point": _NOT_SEEN + "a requantization that clamps before adding the zero point",
}

FAULTS: tuple[Fault, ...] = tuple(
    Fault(f"qgemm.{name}", what, _node(requant=how), seen_in=_REQUANT_SEEN[name], applies=_quantized)
    for name, how, what in REQUANT_FAULTS
) + (
    Fault("qgemm.requant_unsaturated", "converts round(x / y_scale) + y_zero_point to the output type without "
          "saturating (wraps modulo 256)", _node(requant="unsaturated"), applies=_quantized,
          seen_in=_NOT_SEEN + "a C cast of the int32 result (onnx.reference's QLinearMatMul before onnx PR #7868)"),
    Fault("qgemm.requant_truncate", "truncates x / y_scale toward zero instead of rounding (an int cast of the "
          "float64 product)", _node(requant="truncate"), applies=_quantized,
          seen_in=_NOT_SEEN + "(int32_t) of the scaled accumulator"),
    Fault("qgemm.alpha_ignored", "ignores alpha (computes as if alpha = 1)", _node(alpha_one=True),
          seen_in=_NOT_SEEN + "a converter that maps QGemm to QLinearMatMul-like kernels without the attribute"),
    Fault("qgemm.alpha_after_requantization", "requantizes acc + C without alpha, then multiplies the rounded result "
          "by alpha and rounds again", _node(alpha_after=True), applies=_quantized,
          seen_in=_NOT_SEEN + "alpha applied as a post-scale of the integer output"),
    Fault("qgemm.c_scale_without_alpha", "takes C's scale as a_scale * b_scale (alpha multiplies only the product: "
          "x = a_scale * b_scale * (alpha * acc + C)), Gemm's alpha A B + C", _node(c_without_alpha=True),
          equivalent=_unless_c, seen_in=_NOT_SEEN + "Gemm's formula with C dequantized at the product's scale"),
    Fault("qgemm.c_scale_is_y_scale", "takes C as quantized at y_scale: adds it to the rounded result (float output: "
          "adds it unscaled)", _node(c_y_scale=True), equivalent=_unless_c,
          seen_in=_NOT_SEEN + "a bias read in the output's quantization"),
    Fault("qgemm.c_added_after_rounding", "requantizes acc and C each on its own and adds the rounded results",
          _node(c_after_round=True), equivalent=_unless_c, applies=_quantized,
          seen_in=_NOT_SEEN + "a bias requantized apart from the product"),
    Fault("qgemm.trans_a_ignored", "ignores transA (reads A as (M, K); refused where K then disagrees)",
          _node(ignore="transA"), may_refuse=True, seen_in=_NOT_SEEN + "a kernel without the transA path"),
    Fault("qgemm.trans_b_ignored", "ignores transB (reads B as (K, N); refused where K then disagrees)",
          _node(ignore="transB"), may_refuse=True, seen_in=_NOT_SEEN + "a kernel without the transB path"),
    Fault("qgemm.per_column_zero_point_first", "uses b_zero_point[0] for every column", _node(b_zp_first=True),
          equivalent=_unless_per_column, seen_in=_NOT_SEEN + "a kernel that reads a per-tensor b_zero_point slot"),
    Fault("qgemm.per_column_scale_first", "uses b_scale[0] for every column", _node(b_scale_first=True),
          equivalent=_unless_per_column, seen_in=_NOT_SEEN + "a kernel that reads a per-tensor b_scale slot"),
    Fault("qgemm.b_shapes_differ_refused", "refuses a b_scale and a b_zero_point of different shapes (one per "
          "tensor, the other per column; or one [] and the other [1])", _node(refuse_mixed=True), may_refuse=True,
          seen_in="onnxruntime 1.32.0 (quant_gemm.cc:158 CheckInputs: 'QGemm : zero point and scale of input b should "
                  "have same shape size'; measured here: test_qgemm_per_column_scale_trans0_uint8, the other "
                  "per_column_scale / per_column_zero_point cases, test_qgemm_b_scale_one_zero_point_scalar_uint8)"),
    Fault("qgemm.int16_pair_saturation", "adds the raw A' * B' products of K indices 2j, 2j + 1 with int16 "
          "saturation (x86 VPMADDUBSW: uint8 A, int8 B; other type pairs exact), zero points applied after",
          _node(pairs16=True), cpu="x86-64 without VNNI",
          seen_in="onnxruntime#16105 (MLAS QgemmU8X8KernelAvx2, x86-64 AVX2 without VNNI; QGemm, QLinearMatMul and "
                  "QLinearConv share the U8S8 QGEMM)"),
    *(Fault(f"qgemm.column_tail{w}_round_half_away",
            f"rounds ties half away from zero in the last N % {w} output columns (all of them when N < {w})",
            _node(tail=w), applies=_quantized,
            seen_in=_NOT_SEEN + f"a {w}-lane requantization loop whose scalar remainder calls std::round")
      for w in TAIL_WIDTHS),
    Fault("qgemm.k_0_zero", "K = 0: Y is 0 everywhere (Y zero-initialized, the empty product's C and "
          "requantization skipped)", _node(k0_zero=True), equivalent=_unless_k0_differs,
          seen_in="onnxruntime 1.32.0 CPU, partly (measured here: for K = 0 it leaves Y unwritten, test_qgemm_k_0 and "
                  "test_qgemm_k_0_float give an earlier allocation's bytes: this fault is the zero-initialized form "
                  "of that)"),
    Fault("qgemm.float_output_via_float16", "rounds the float output through float16", _node(float16=True),
          applies=_float, seen_in=_NOT_SEEN + "a float16 output buffer converted to float32"),
)
