"""Where a value fault can differ: by exhaustive enumeration of an input type of <= 16 bits, and by the analytic
rules of `_analytic` for the wider types."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import same_elements
from generator.family import split_elements
from generator.reference import convert_promote_types as ref
from generator.reference.convert_promote_types_faults.conversions import HELD, VALUE_CONVERTS
from generator.reference.convert_promote_types_faults.decisions import Convert, F16, F32, F64, rdecide
from generator.reference.convert_promote_types_faults.groups import params_of


# ---------------------------------------------------------------------------------------
# value faults: where they can differ
# ---------------------------------------------------------------------------------------
def _precision(t: DType) -> int:
    return t.mantissa_bits + 1


def _magnitude_bits(t: DType) -> int:
    """Bits of an integer type's largest magnitude (u32: 32, i32: 31)."""
    return t.bits if t.kind == "uint" else t.bits - 1


def _defined_max(t: DType) -> float:
    """Largest magnitude an integer converted to float type t may have and stay defined (rounds to <= max)."""
    ulp = 2.0 ** (math.floor(math.log2(t.finite_max)) - t.mantissa_bits)
    return t.finite_max + ulp / 2


def _analytic(name: str, src: DType, to: DType) -> str | None:
    """The analytic reason why value fault `name` cannot change a defined value of src converted to `to`, or
    None if it may (for a type of <= 16 bits `value_can_differ` then enumerates every value to decide)."""
    if name in ("via_float64", "via_float32", "via_float16"):
        inter = {"via_float64": F64, "via_float32": F32, "via_float16": F16}[name]
        if not to.is_float or src in (inter, to) or to.bits >= inter.bits:
            return f"{src.name} -> {to.name} does not go through {inter.name} (not a narrower float target)"
        if src.kind == "bool":
            return "false / true are exact in every float type"
        if src.is_integer:
            p = _precision(inter)
            if _magnitude_bits(src) <= p:
                return f"every {src.name} is exact in {inter.name} (|x| <= 2**{_magnitude_bits(src)})"
            if _defined_max(to) < 2.0 ** (p + 1) + 2.0 ** (p + 1 - to.mantissa_bits):
                return (f"a {src.name} defined in {to.name} has |x| <= {_defined_max(to):g} < 2**{p + 1}: exact in "
                        f"{inter.name}, so rounding through it changes nothing")
            return None
        if src.mantissa_bits <= inter.mantissa_bits and src.exponent_bits <= inter.exponent_bits:
            return f"every {src.name} is exact in {inter.name}"
        return None
    if name == "f64_held_in_f32":
        if to != F64:
            return "the common type is not f64"
        if src.is_integer:
            return None if _magnitude_bits(src) > 24 else f"every {src.name} is exact in f32"
        if src.kind == "bool":
            return "false / true are exact in f32"
        if src != F64 and not src.has_inf:
            return f"every {src.name} is finite and exact in f32"
        return None  # +-Inf clamps, f64 rounds
    if name == "int64_held_in_32_bits":
        if not (to.is_integer and to.bits == 64):
            return "the common type is not a 64-bit integer"
        if src.kind == "bool" or (src.is_integer and src.int_min >= -(2**31) and src.int_max <= 2**31 - 1):
            return f"every {src.name} fits in int32"
        return None
    if name == "float8_decoded_as_normals":
        if src.name not in ("float8e4m3fn", "float8e5m2") or src == to:
            return "the input is not an f8e4m3 / f8e5m2 converted to another type"
        return None
    if name == "float8_saturated":
        if not to.is_float8 or src == to:
            return "the common type is not a float8 other than the input's"
        if not src.has_inf or not to.has_inf:
            return (f"saturation changes only +-Inf ({src.name} has none)" if not src.has_inf else
                    f"{to.name} has no Inf: an infinite input is undefined there")
        return None
    if name == "float8e4m3fn_negative_nan_as_number":
        if src.name != "float8e4m3fn" or src == to:
            return "the input is not an f8e4m3fn converted to another type"
        return None
    if name == "denormals_flushed_to_f64":
        if to != F64 or src == to:
            return "the common type is not f64 or the input is already f64"
        if not src.is_float:
            return f"every nonzero {src.name} has |x| >= 1"
        if src.smallest_subnormal >= F32.smallest_normal:
            return f"no nonzero {src.name} is below float32's smallest normal"
        return None
    raise KeyError(name)


def _all_values(t: DType) -> np.ndarray:
    if t.kind == "bool":
        return np.array([False, True])
    return t.all_values()


def differing(convert: Convert, x: np.ndarray, src: DType, to: DType) -> np.ndarray:
    """The elements of x (of type src, flat) that the reference converts to `to` with a defined result and
    `convert` (a value fault's) converts to another."""
    x, defined, _, _ = split_elements(x, ref.convert(x, src, to))
    z = np.asarray(convert(x, src, to)).astype(to.np_dtype)
    return x[~same_elements(defined.outputs[0], z, to)]


@lru_cache(maxsize=None)
def value_witnesses(name: str, src_name: str, to_name: str, limit: int = 2) -> tuple:
    """For a <= 16-bit input type: up to `limit` values of src (as Python numbers) on which the value fault
    `name` differs from the reference converting to `to`, found by enumerating every value of src; () if none
    does. For wider types: () (see `_analytic` and generator.witness.convert_promote_types)."""
    src, to = dtypes.get(src_name), dtypes.get(to_name)
    if src.bits > 16 and src.kind != "bool":
        raise ValueError(f"{src.name}: too wide to enumerate")
    found = differing(VALUE_CONVERTS[name], _all_values(src), src, to)
    if found.size == 0:
        return ()
    pick = [found[0]] + ([found[-1]] if found.size > 1 else [])
    return tuple(v.item() if hasattr(v, "item") else v for v in pick[:limit])


def value_can_differ(name: str, src: DType, to: DType) -> str | None:
    """None if value fault `name` can change a defined value of src converted to `to`, else why not."""
    if src == to and name not in HELD:
        return "the input is already of the common type"
    why = _analytic(name, src, to)
    if why is not None or src.bits > 16:
        return why
    if value_witnesses(name, src.name, to.name):
        return None
    return f"every value of {src.name} converts to {to.name} as the reference does (all {1 << src.bits} enumerated)"


def _value_equivalent(name: str) -> Callable[[dict], str | None]:
    def equivalent(params: dict) -> str | None:
        t0, t1, ranks, a = params_of(params)
        d = rdecide(t0, t1, *ranks, a)
        if d.common is None:
            return "the pair is refused (safe mode): no values are converted"
        reasons = []
        for t in (t0, t1):
            why = value_can_differ(name, t, d.common)
            if why is None:
                return None
            reasons.append(f"{t.name}: {why}")
        return f"values to {ref.element_name(d.common)}: " + "; ".join(dict.fromkeys(reasons))
    return equivalent
