"""The value faults' conversions (each gives what the reference gives outside its domain, VALUE_CONVERTS by
name), and the node function a fault is: a decision and a conversion."""

from __future__ import annotations

from typing import Callable

import numpy as np

from generator.dtypes import DType
from generator.reference import float8_bitwise
from generator.reference import cast as cast_ref
from generator.reference import convert_promote_types as ref
from generator.reference.convert_promote_types_faults.decisions import Convert, Decide, F16, F32, F64, Shape


# ---------------------------------------------------------------------------------------
# value conversions (each gives what the reference gives outside its domain)
# ---------------------------------------------------------------------------------------
def convert_reference(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    return ref.convert(x, src, to).outputs[0]


def _cast(x, src: DType, to: DType, saturate: bool = False) -> np.ndarray:
    return cast_ref.cast_outcome(np.asarray(x, dtype=src.np_dtype), src, to, saturate=saturate).outputs[0]


def _via(inter: DType) -> Convert:
    def convert(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
        if not to.is_float or src in (inter, to) or src.kind == "bool" or to.bits >= inter.bits:
            return convert_reference(x, src, to)
        return _cast(_cast(x, src, inter), inter, to)

    convert.__doc__ = f"values rounded to {inter.name} first, then to the common type (double rounding)"
    return convert


convert_via_float64, convert_via_float32, convert_via_float16 = _via(F64), _via(F32), _via(F16)


def convert_f64_held_in_f32(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """A float64 result held in float32: rounded to float32, and +-Inf or a magnitude beyond float32's largest
    finite value clamped to +-FLT_MAX (what OpenVINO's CPU plugin measured here gives)."""
    y = convert_reference(x, src, to)
    if to != F64:
        return y
    with np.errstate(over="ignore", invalid="ignore"):
        v = y.astype(np.float64)
        big = np.isinf(v) | (np.abs(v) > F32.finite_max)
        r = np.where(big, np.sign(v) * F32.finite_max, v).astype(np.float32).astype(np.float64)
    return np.where(np.isnan(v), v, r)


def convert_int64_held_in_32_bits(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """A 64-bit integer result held in 32 bits: the low 32 bits, sign-extended (u64 2**31 ->
    18446744071562067968; OpenVINO's CPU plugin computes i64 / u64 as i32)."""
    y = convert_reference(x, src, to)
    if to.kind not in ("int", "uint") or to.bits != 64:
        return y
    low = (np.asarray(y).astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    wide = low.astype(np.int64)
    return wide if to.kind == "int" else wide.astype(np.uint64)


def convert_float8_saturated(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """Conversions to a float8 common type with ONNX Cast's default saturate=1 (+-Inf -> +-57344 for f8e5m2),
    where the promotion keeps the value (saturate=0)."""
    if not to.is_float8 or src == to:
        return convert_reference(x, src, to)
    return _cast(x, src, to, saturate=True)


def float8_as_normals(x: np.ndarray, src: DType) -> np.ndarray:
    """The values a float8 decoder without special cases reads (float64): every encoding as a normal number
    (generator/reference/float8_bitwise.py, TVM 0.27's arithmetic): 0 -> 2**-bias, a subnormal gains the implicit 1,
    and the all-ones exponent (Inf / NaN) is a number (f8e5m2 Inf -> 65536, f8e4m3 NaN 0x7f -> 480)."""
    return float8_bitwise.decode(src.to_bits(np.asarray(x, dtype=src.np_dtype)), src.name).astype(np.float64)


def convert_float8_decoded_as_normals(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """f8e4m3 / f8e5m2 inputs decoded without special cases (float8_as_normals), then converted to the common
    type as the reference converts a float64."""
    if src.name not in ("float8e4m3fn", "float8e5m2") or src == to:
        return convert_reference(x, src, to)
    return _cast(float8_as_normals(x, src), F64, to)


def convert_float8e4m3fn_negative_nan_as_number(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """f8e4m3fn's negative NaN 0xFF decoded by the exponent rule, as -480 (1.875 * 2**8), then converted to the
    common type; 0x7F, the positive NaN, stays NaN (IREE 3.13 llvm-cpu, as its Cast does: a decoder that tests
    the NaN pattern without its sign bit)."""
    if src.name != "float8e4m3fn" or src == to:
        return convert_reference(x, src, to)
    x = np.asarray(x, dtype=src.np_dtype)
    v = np.where(src.to_bits(x) == 0xFF, -480.0, x.astype(np.float64))
    return _cast(v, F64, to)


def convert_denormals_flushed_to_f64(x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """A float input below float32's smallest normal (an f32 or bf16 subnormal) -> a zero of its sign on its way
    to an f64 common type (an f32 -> f64 extension with denormals flushed: 1.401298464324817e-45 -> 0)."""
    y = convert_reference(x, src, to)
    if to != F64 or not src.is_float or src == to:
        return y
    v = np.asarray(y, dtype=np.float64)
    small = np.isfinite(v) & (v != 0) & (np.abs(v) < F32.smallest_normal)
    return np.where(small, np.copysign(0.0, v), v)


# ---------------------------------------------------------------------------------------
# node functions
# ---------------------------------------------------------------------------------------
def _multi(rank: int) -> Shape:
    """A shape of `rank` with more than one element (rank 0: a scalar)."""
    return (2,) * rank


def make_node(decide: Decide, convert: Convert) -> Callable:
    """A ConvertPromoteTypes node function (reference signature) from a decision and a conversion. Its
    `validate` decides from types and ranks only (a dimensioned input is taken to have several elements);
    the node function decides on the actual shapes and raises PromotionError where the decision refuses."""

    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
        t0, t1 = input_types[0], input_types[1]
        d = decide(t0, t1, np.shape(inputs[0]), np.shape(inputs[1]), ref.node_attributes(attrs))
        if d.common is None:
            raise ref.PromotionError(d.error, d.clause)
        return [np.asarray(convert(x, t, d.common)).reshape(np.shape(x)) for x, t in zip(inputs, input_types)]

    def validate(attrs: dict, opset: int, input_types: list[DType], input_ranks: list[int]) -> DType:
        d = decide(input_types[0], input_types[1], _multi(input_ranks[0]), _multi(input_ranks[1]),
                   ref.node_attributes(attrs))
        if d.common is None:
            raise ref.PromotionError(d.error, d.clause)
        return d.common

    fn.validate = validate
    fn.decide, fn.convert = decide, convert
    return fn




HELD = ("f64_held_in_f32", "int64_held_in_32_bits")  # faults of the result: an input of the common type too
VALUE_CONVERTS: dict[str, Convert] = {
    "via_float64": convert_via_float64,
    "via_float32": convert_via_float32,
    "via_float16": convert_via_float16,
    "f64_held_in_f32": convert_f64_held_in_f32,
    "int64_held_in_32_bits": convert_int64_held_in_32_bits,
    "float8_saturated": convert_float8_saturated,
    "float8_decoded_as_normals": convert_float8_decoded_as_normals,
    "float8e4m3fn_negative_nan_as_number": convert_float8e4m3fn_negative_nan_as_number,
    "denormals_flushed_to_f64": convert_denormals_flushed_to_f64,
}
