"""The decision faults' procedures: the common type decided wrongly (the reference's decide beside each), and the
types every part of the fault models shares."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.reference import convert_promote_types as ref


FAMILY = "convert_promote_types"
OPENVINO = "OpenVINO 2026.4.1"
F16, BF16, F32, F64 = (dtypes.get(n) for n in ("float16", "bfloat16", "float", "double"))

Shape = tuple  # an input's shape; () is a scalar
Decide = Callable[[DType, DType, Shape, Shape, dict], ref.Decision]
Convert = Callable[[np.ndarray, DType, DType], np.ndarray]


# ---------------------------------------------------------------------------------------
# decisions
# ---------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _decide(n0: str, n1: str, r0: int, r1: int, unsafe: bool, pytorch: bool, target: str) -> ref.Decision:
    return ref.decide(n0, n1, r0, r1, promote_unsafe=unsafe, pytorch_scalar_promotion=pytorch,
                      u64_integer_promotion_target=target)


def rdecide(t0: DType, t1: DType, r0: int, r1: int, a: dict) -> ref.Decision:
    """The reference's decision (memoised: the kill matrix asks it for every group and fault)."""
    return _decide(t0.name, t1.name, min(r0, 1), min(r1, 1), bool(a["promote_unsafe"]),
                   bool(a["pytorch_scalar_promotion"]), a["u64_integer_promotion_target"])


def decide_reference(t0: DType, t1: DType, s0: Shape, s1: Shape, a: dict) -> ref.Decision:
    return rdecide(t0, t1, len(s0), len(s1), a)


def _one_scalar(t0: DType, t1: DType, s0: Shape, s1: Shape, a: dict) -> tuple[DType, DType] | None:
    """(scalar type, dimensioned type) where pytorch_scalar_promotion is on and exactly one input is a scalar
    (rank 0) of a type different from the other's; else None."""
    if not a["pytorch_scalar_promotion"] or (len(s0) == 0) == (len(s1) == 0) or t0 == t1:
        return None
    return (t0, t1) if len(s0) == 0 else (t1, t0)


def decide_pytorch_safe_bit_width(t0, t1, s0, s1, a) -> ref.Decision:
    """pytorch_scalar_promotion in safe mode accepts by bit width, not range: same signedness and the
    dimensioned type at least as wide, or a signed dimensioned type with 2 x its width >= the unsigned
    scalar's (OpenVINO's convert_promote_types.cpp); floats count as signed."""
    pick = _one_scalar(t0, t1, s0, s1, a)
    if pick is None or ref.priority(t0) != ref.priority(t1) or a["promote_unsafe"]:
        return decide_reference(t0, t1, s0, s1, a)
    scalar, dim = pick

    def signed(t: DType) -> bool:
        return t.kind != "uint"

    ok = ((signed(dim) == signed(scalar) and dim.bits >= scalar.bits)
          or (signed(dim) and not signed(scalar) and dim.bits * 2 >= scalar.bits))
    if ok:
        return ref.Decision(dim, ref.CLAUSE_PYTORCH)
    return ref.Decision(None, ref.CLAUSE_PYTORCH, ref.ERR_LOWER_RANGE)


def decide_mixed_sign_max_width(t0, t1, s0, s1, a) -> ref.Decision:
    """signed + unsigned integers: the signed type of the wider input's bit width (u8 + i8 -> i8, u64 + i8 ->
    i64), not one that holds the unsigned input's range; safe mode refuses only a widening beyond it."""
    d = decide_reference(t0, t1, s0, s1, a)
    if d.clause not in (ref.CLAUSE_INT_MIXED_SIGN, ref.CLAUSE_U64):
        return d
    unsigned, signed = (t0, t1) if t0.kind == "uint" else (t1, t0)
    common = ref._signed_int(max(unsigned.bits, signed.bits))
    if common != signed and not a["promote_unsafe"]:
        return ref.Decision(None, ref.CLAUSE_INT_MIXED_SIGN, ref.ERR_WIDENING)
    return ref.Decision(common, ref.CLAUSE_INT_MIXED_SIGN)


def decide_scalar_rule_ignored(t0, t1, s0, s1, a) -> ref.Decision:
    """pytorch_scalar_promotion is not read: the rules without it."""
    return decide_reference(t0, t1, s0, s1, dict(a, pytorch_scalar_promotion=False))


def decide_scalar_by_element_count(t0, t1, s0, s1, a) -> ref.Decision:
    """A tensor of one element (a (1,) or (1, 1) tensor) is taken for a scalar, whatever its rank."""
    def as_rank(s: Shape) -> int:
        return 0 if int(np.prod(s, dtype=np.int64)) == 1 else 1

    return rdecide(t0, t1, as_rank(s0), as_rank(s1), a)


def decide_u64_target_ignored(t0, t1, s0, s1, a) -> ref.Decision:
    """u64_integer_promotion_target is not read: u64 + a signed integer always gives the default, f32."""
    return decide_reference(t0, t1, s0, s1, dict(a, u64_integer_promotion_target=ref.DEFAULT_TARGET))


def decide_scalar_rule_across_priorities(t0, t1, s0, s1, a) -> ref.Decision:
    """pytorch_scalar_promotion applied whatever the type priorities: S(f16), D(i8) -> i8 (the spec's example
    says f16); in safe mode such a lower-priority dimensioned type is a lower range, refused."""
    pick = _one_scalar(t0, t1, s0, s1, a)
    if pick is not None and ref.priority(pick[1]) < ref.priority(pick[0]):
        if a["promote_unsafe"]:
            return ref.Decision(pick[1], ref.CLAUSE_PYTORCH)
        return ref.Decision(None, ref.CLAUSE_PYTORCH, ref.ERR_LOWER_RANGE)
    return decide_reference(t0, t1, s0, s1, a)


def decide_u64_exception_first(t0, t1, s0, s1, a) -> ref.Decision:
    """u64 + a signed integer goes to u64_integer_promotion_target (or is refused in safe mode) before
    pytorch_scalar_promotion is looked at: S(u64), D(i8) -> f32 instead of i8."""
    kinds = {t0.kind, t1.kind}
    if _one_scalar(t0, t1, s0, s1, a) is not None and kinds == {"uint", "int"} and 64 in (
            t.bits for t in (t0, t1) if t.kind == "uint"):
        if a["promote_unsafe"]:
            return ref.Decision(ref.element_type(a["u64_integer_promotion_target"]), ref.CLAUSE_U64)
        return ref.Decision(None, ref.CLAUSE_U64, ref.ERR_U64_SIGNED)
    return decide_reference(t0, t1, s0, s1, a)


def decide_float8_pair_bf16(t0, t1, s0, s1, a) -> ref.Decision:
    """(f8e4m3, f8e5m2) -> bf16: the tie of [float] broken the other way (the spec fixes f16)."""
    d = decide_reference(t0, t1, s0, s1, a)
    if d.clause == ref.CLAUSE_FLOAT8 and d.common is not None:
        return ref.Decision(BF16, ref.CLAUSE_FLOAT8)
    return d
