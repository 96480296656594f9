"""Fault models of com.microsoft DynamicQuantizeMatMul-1 (docs/fault_models.md): the reference
(generator/reference/dynamic_quantize_matmul.py) with one deviation, in A's quantization or after it (then
MatMulIntegerToFloat's fault models, matmul_integer_to_float_faults.SHARED, on the quantized A).

  A's quantization  symmetric int8 (scale max |a| / 127, zero point 0) instead of DynamicQuantizeLinear's uint8;
                    the range [min, max] of A not widened to include 0 (zero point saturated to uint8: the values
                    clip); the zero point fixed at 0 (negative values clip to 0); a / scale truncated toward zero,
                    not rounded; one scale and zero point per row of A (uint8 asymmetric)
  after it          B's zero point ignored / its element 0 only, b_scale's element 0 only, bias ignored / added
                    before the scaling, a_scale * b_scale rounded to float16, the dequantized operands rounded to
                    float16, raw uint8 x int8 products in int16-saturating pairs

Killed where the outputs leave the dot-product bound (run / killed: matmul_integer_to_float_faults'). A on the
quantization grid has qerr 0 (reference READING_A_QUANT), so the bound there is a few float32 roundings.

Groups (group_key): "<B type> b_zp=<absent|tensor|column> b_scale=<tensor|column> bias=<0|1>[ b_nd]" (b_nd: B
of rank > 2).
"""

from __future__ import annotations

import numpy as np

from generator.faults import Fault
from generator.reference import dynamic_quantize_matmul as ref
from generator.reference import matmul_integer_to_float as mitf
from generator.reference import matmul_integer_to_float_faults as mf
from generator.reference.matmul_integer_to_float_faults import _NOT_SEEN, _prefixed, killed, run  # noqa: F401

FAMILY = "dynamic_quantize_matmul"


def _uint8(a32: np.ndarray, scale: float, zp: float, rounding=np.round) -> np.ndarray:
    return np.clip(rounding(a32.astype(np.float64) / scale) + zp, 0, 255) if scale > 0 else np.zeros(a32.shape)


def quantize(a: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, scale, zero point) of A, float64, the scale and zero point shaped to broadcast against A [..., M, K]:
    "dql" (the reference's), "int8_symmetric", "not_widened", "zero_point_zero", "truncated", "per_row"."""
    a32 = np.asarray(a, np.float32)
    if how == "per_row":
        lo = np.minimum(a32.min(axis=-1, keepdims=True), 0).astype(np.float64)
        hi = np.maximum(a32.max(axis=-1, keepdims=True), 0).astype(np.float64)
        scale = ((hi - lo) / 255).astype(np.float32).astype(np.float64)
        safe = np.where(scale > 0, scale, 1.0)
        zp = np.clip(np.round(-lo / safe), 0, 255)
        return np.clip(np.round(a32 / safe) + zp, 0, 255), scale, zp
    if how == "int8_symmetric":
        scale = float(np.float32(np.abs(a32).max() / np.float32(127)))
        return np.clip(np.round(a32.astype(np.float64) / scale), -127, 127), np.array(scale), np.array(0.0)
    if how == "not_widened":
        lo, hi = float(a32.min()), float(a32.max())
        scale = float(np.float32((hi - lo) / 255))
        zp = float(np.clip(np.round(-lo / scale), 0, 255)) if scale > 0 else 0.0
        return _uint8(a32, scale, zp), np.array(scale), np.array(zp)
    qa, a_s, a_zp = (np.asarray(x, np.float64) for x in ref.quantized_a(a32).outputs)
    if how == "zero_point_zero":
        return _uint8(a32, float(a_s), 0.0), a_s, np.array(0.0)
    if how == "truncated":
        return _uint8(a32, float(a_s), float(a_zp), np.trunc), a_s, a_zp
    return qa, a_s, a_zp


def _node(how: str = "dql", **deviation):
    """A node function: A quantized `how`, then MatMulIntegerToFloat (with `deviation`) of the quantized A."""
    def fn(inputs: list, attrs: dict, opset: int, input_types: list) -> list:
        a, b, b_s, b_zp, bias = ref._inputs(inputs)
        q, a_s, a_zp = quantize(a, how)
        if np.ndim(a_s):  # per row: the scaled integer sum row by row
            db = np.asarray(b).astype(np.int64) - mitf.side(b_zp).astype(np.int64)
            y = np.matmul((q - a_zp).astype(np.int64), db) * a_s * mitf.side(b_s)
            y = y + (0 if bias is None else np.asarray(bias, np.float64))
            return [y.astype(np.float32)]
        signed = how == "int8_symmetric"
        qa = q.astype(np.int8 if signed else np.uint8)
        zp = np.array(a_zp, np.int8 if signed else np.uint8)
        return mf.compute([qa, b, np.float32(a_s), b_s, zp, b_zp, bias], **deviation)
    fn.__doc__ = f"DynamicQuantizeMatMul with A quantized {how!r} and the deviation {deviation}."
    return fn


def parts(p: dict) -> tuple:
    """(B type, b_zero_point form, b_scale form, bias, B batched) of a case's params."""
    return (p.get("b_type", "uint8"), mf.B_FORMS[p.get("b_zp", "absent")], mf.B_FORMS[p.get("b_scale", "tensor")],
            bool(p.get("bias")), len(p.get("b_shape", ())) > 2)


def group_key(meta: dict) -> str:
    bt, bz, bs, bias, nd = parts(meta.get("params") or {})
    return f"{bt} b_zp={bz} b_scale={bs} bias={int(bias)}" + (" b_nd" if nd else "")


def _as_mitf(p: dict) -> dict:
    """A DynamicQuantizeMatMul group's params as MatMulIntegerToFloat's (A uint8 with a zero point, float T3)."""
    bt, bz, bs, bias, nd = parts(p)
    return {"t3": "float", "a_type": "uint8", "b_type": bt, "a_zp": "tensor", "a_scale": "tensor", "b_zp": bz,
            "b_scale": bs, "bias": bias, "b_shape": [1, 1, 1] if nd else [1, 1]}


_SHARED = {f.name: f for f in mf.SHARED}
_AFTER = {"b_zero_point_ignored": dict(drop_b=True), "b_zero_point_first": dict(b_zp_first=True),
          "b_scale_first": dict(b_scale_first=True), "bias_ignored": dict(bias_ignored=True),
          "bias_before_scaling": dict(bias_before=True), "b_zero_point_per_column_nd_refused": dict(nd_zp_refused=True), "bias_before_b_scale": dict(bias_before_b=True), "scale_product_float16": dict(scale16=True),
          "dequantized_float16": dict(deq16=True), "int16_pair_saturation": dict(pairs16=True)}


def _after(name: str) -> Fault:
    """MatMulIntegerToFloat's fault `name` after DynamicQuantizeLinear of A, its applicability and proofs read
    through _as_mitf."""
    f = _SHARED[name]
    return _prefixed(FAMILY, Fault(f.name, f.what, _node(**_AFTER[name]), seen_in=f.seen_in, cpu=f.cpu,
                                   may_refuse=f.may_refuse,
                                   equivalent=lambda p, f=f: f.equivalent(_as_mitf(p)),
                                   applies=lambda p, f=f: f.applies(_as_mitf(p))))


FAULTS: tuple[Fault, ...] = (
    Fault(f"{FAMILY}.a_int8_symmetric", "quantizes A to int8 symmetrically (scale max |a| / 127, zero point 0), not "
          "to DynamicQuantizeLinear's uint8 (half the resolution for one-signed A)", _node("int8_symmetric"),
          seen_in=_NOT_SEEN + "the int8 x int8 (s8s8) dynamic-quantization kernels of other runtimes (per-token "
                              "symmetric activations)"),
    Fault(f"{FAMILY}.a_range_not_widened", "quantizes A over [min(A), max(A)], not widened to include 0: the zero "
          "point saturates to uint8 and the values clip", _node("not_widened"),
          seen_in=_NOT_SEEN + "DynamicQuantizeLinear's function body without its Min(0) / Max(0) steps"),
    Fault(f"{FAMILY}.a_zero_point_zero", "quantizes A to uint8 with zero point 0 (negative values clip to 0)",
          _node("zero_point_zero"), seen_in=_NOT_SEEN + "an unsigned activation quantizer that assumes ReLU inputs"),
    Fault(f"{FAMILY}.a_truncated", "quantizes A truncating a / scale toward zero, not rounding to nearest",
          _node("truncated"), seen_in=_NOT_SEEN + "a float -> int conversion that truncates (C's cast)"),
    Fault(f"{FAMILY}.a_per_row", "quantizes A with one uint8 scale and zero point per row, not for the whole of A",
          _node("per_row"),
          seen_in="onnxruntime >= 1.22 on arm64 (KleidiAI's per-row activation quantization, reported as 'different "
                  "activation-quantization numerics' in a public user's code; not measured here)"),
) + tuple(_after(name) for name in _AFTER)
