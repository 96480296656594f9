"""Fault models of ConvertPromoteTypes-14: plausible wrong implementations of
generator.reference.convert_promote_types (DESIGN.md, "Fault models, witnesses, diagnosis").

Each fault is a node function with the reference's signature (and a `validate`, the prepare-time check that
refuses a pair in safe mode), made of a decision (the common type, or a refusal) and a value conversion.
Two kinds:

  decision faults   the common type is decided wrongly: the output ELEMENT TYPE differs (or the fault
                    refuses a valid pair, or accepts one safe mode must refuse). Any data set of a group where
                    the decision differs kills them; where the reference refuses and the fault accepts, only the
                    group's negative case can (`refuses`).
  value faults      the common type is right, the values are converted wrongly (rounded through an
                    intermediate type, held in fewer bits, saturated). Only particular values kill them.

A parameter group (`group_key`) is the pair of element types, the attributes (promote_unsafe,
pytorch_scalar_promotion, u64_integer_promotion_target) and the ranks (each input dimensioned or a scalar):
case.json params input_0, input_1, shapes, promote_unsafe, pytorch_scalar_promotion,
u64_integer_promotion_target. The opset of the function body is not part of it (it changes nothing the op
decides).

`equivalent(params)` proves, per group, that a fault cannot differ there: for decision faults by running both
decision procedures on the group's types, ranks and attributes (for the element-count fault, with every
dimensioned input either one-element or not); for value faults by exhaustive enumeration of every value of
an input type of <= 16 bits, and by the analytic rules of `_analytic` for the wider types.

A fault that refuses a model returns no outputs from `run` (a backend that raises where the spec requires a
result fails); `killed` also counts a different output element type as a kill (the strict comparison
`generator.faults.differs` casts to the expected type first).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import Fault, differs, same_elements
from generator.family import split_elements
from generator.interpret import compile_model, decode_attribute, domain_of, run_program, static_shapes
from generator.reference import float8_bitwise
from generator.reference import cast as cast_ref
from generator.reference import convert_promote_types as ref
from generator.reference import lookup as reference_lookup
from generator.serialize import graph_io_types

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


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def group_key(meta: dict) -> str:
    """The parameter group of a case: "<input_0>,<input_1>|<shapes>|<safe|unsafe>[|pytorch][|target=<t>]"
    (the target only where it can matter: u64 with a signed integer)."""
    return key_of(meta.get("params") or {})


def key_of(p: dict) -> str:
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    parts = [f"{t0.name},{t1.name}", p["shapes"], "unsafe" if p["promote_unsafe"] else "safe"]
    if p["pytorch_scalar_promotion"]:
        parts.append("pytorch")
    if {t0.kind, t1.kind} == {"uint", "int"} and 64 in (t.bits for t in (t0, t1) if t.kind == "uint"):
        parts.append(f"target={p.get('u64_integer_promotion_target', ref.DEFAULT_TARGET)}")
    return "|".join(parts)


def params_of(p: dict) -> tuple[DType, DType, tuple[int, int], dict]:
    """(t0, t1, ranks, decide's keyword arguments) of a group's params."""
    t0, t1 = dtypes.get(p["input_0"]), dtypes.get(p["input_1"])
    ranks = tuple(0 if s == "scalar" else 1 for s in p["shapes"].split("_"))
    attrs = {"promote_unsafe": bool(p["promote_unsafe"]),
             "pytorch_scalar_promotion": bool(p["pytorch_scalar_promotion"]),
             "u64_integer_promotion_target": p.get("u64_integer_promotion_target", ref.DEFAULT_TARGET)}
    return t0, t1, ranks, attrs


def shape_choices(rank: int) -> list[Shape]:
    """The shapes a group's input can have, as far as any decision here can tell: a scalar, or a dimensioned
    tensor of one element or of several."""
    return [()] if rank == 0 else [(1,), (2,)]


def _describe(d: ref.Decision) -> str:
    return ref.element_name(d.common) if d.common is not None else "a refusal"


def _decision_equivalent(decide: Decide) -> Callable[[dict], str | None]:
    def equivalent(params: dict) -> str | None:
        t0, t1, ranks, a = params_of(params)
        seen = set()
        for s0 in shape_choices(ranks[0]):
            for s1 in shape_choices(ranks[1]):
                r, f = decide_reference(t0, t1, s0, s1, a), decide(t0, t1, s0, s1, a)
                if (r.common is None) != (f.common is None) or r.common != f.common:
                    return None
                seen.add(_describe(r))
        both = " / ".join(sorted(seen))
        if seen == {"a refusal"}:
            return ("decision: the fault and the reference both refuse this pair (types, ranks, attributes of the "
                    "group); a refused model has no values")
        return (f"decision: the fault decides {both} like the reference for the types, ranks and attributes of the "
                f"group (every dimensioned input of one element or more); the values are then the same Cast")
    return equivalent


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


# ---------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------
HELD = ("f64_held_in_f32", "int64_held_in_32_bits")  # faults of the result: an input of the common type too
VALUE_CONVERTS: dict[str, Convert] = {
    "via_float64": convert_via_float64,
    "via_float32": convert_via_float32,
    "via_float16": convert_via_float16,
    "f64_held_in_f32": convert_f64_held_in_f32,
    "int64_held_in_32_bits": convert_int64_held_in_32_bits,
    "float8_saturated": convert_float8_saturated,
    "float8_decoded_as_normals": convert_float8_decoded_as_normals,
}


def _decision_fault(short: str, what: str, decide: Decide, seen_in: str = "") -> Fault:
    return Fault(f"{FAMILY}.{short}", what, make_node(decide, convert_reference), seen_in,
                 _decision_equivalent(decide))


def _value_fault(short: str, what: str, seen_in: str = "") -> Fault:
    return Fault(f"{FAMILY}.{short}", what, make_node(decide_reference, VALUE_CONVERTS[short]), seen_in,
                 _value_equivalent(short))


FAULTS: tuple[Fault, ...] = (
    _decision_fault("pytorch_safe_bit_width",
                    "pytorch_scalar_promotion, safe mode: bit widths checked instead of ranges (accepts S(u8), D(i8) "
                    "and S(bf16), D(f16))", decide_pytorch_safe_bit_width,
                    f"{OPENVINO} (convert_promote_types.cpp: 22 negative cases accepted)"),
    _decision_fault("mixed_sign_max_width",
                    "signed + unsigned integers: the signed type of the wider bit width (u8 + i8 -> i8), not one "
                    "holding the unsigned range", decide_mixed_sign_max_width,
                    "not seen; modelled as numpy-style promotion by bit width alone (the signed type of the wider "
                    "input), the spec's 'bit-width of at least double' left out"),
    _decision_fault("scalar_rule_ignored", "pytorch_scalar_promotion ignored", decide_scalar_rule_ignored,
                    "not seen; modelled as an attribute never read (the rules of the default, false)"),
    _decision_fault("scalar_by_element_count",
                    "a one-element tensor of any rank taken for a scalar (pytorch_scalar_promotion)",
                    decide_scalar_by_element_count,
                    "not seen; modelled as a scalar test written on the element count (shape_size == 1) instead "
                    "of the rank, as in frontends that squeeze one-element tensors"),
    _decision_fault("u64_target_ignored",
                    "u64_integer_promotion_target ignored: u64 + signed integer always f32",
                    decide_u64_target_ignored,
                    "not seen; modelled as an attribute never read (its default, f32, hard-coded)"),
    _decision_fault("scalar_rule_across_priorities",
                    "pytorch_scalar_promotion applied across type priorities (S(f16), D(i8) -> i8)",
                    decide_scalar_rule_across_priorities,
                    "not seen; modelled as PyTorch's own rule for a 0-dim tensor of the same category taken for "
                    "every category (the spec limits it to the same type priority)"),
    _decision_fault("u64_exception_first",
                    "u64 + signed integer -> u64_integer_promotion_target even where pytorch_scalar_promotion "
                    "applies (S(u64), D(i8) -> f32)", decide_u64_exception_first,
                    "not seen; modelled as the u64 exception tested before the scalar rule (the order of two "
                    "if-branches)"),
    _decision_fault("float8_pair_bf16", "(f8e4m3, f8e5m2) -> bf16 instead of the spec's f16", decide_float8_pair_bf16,
                    "not seen; modelled as the general float rule's other choice, which the spec says it 'could' "
                    "make (bf16 and f16 both hold both float8 types)"),
    _value_fault("via_float64", "values rounded to f64 first (u64 / i64 -> f32 or bf16 double-rounded)",
                 "onnxruntime 1.32.0 and onnx-reference 1.23.2 (the function body's Cast: 24 failing items each in "
                 "the baseline of issue 21, measured here; the same items match via_float32)"),
    _value_fault("via_float32", "values rounded to f32 first (int32 / int64 / f64 -> bf16, f16, f8 double-rounded)",
                 "onnxruntime 1.32.0 (130 failing items) and onnx-reference 1.23.2 (126) in the function body's Cast, "
                 "baseline of issue 21, measured here; OpenVINO 2026.4.1 CPU"),
    _value_fault("via_float16", "values rounded to f16 first (-> f8e5m2 / f8e4m3 double-rounded: i32 61439 -> Inf)",
                 f"{OPENVINO} CPU (conversions to f8e5m2)"),
    _value_fault("f64_held_in_f32", "f64 results held in f32 (rounded; +-Inf and beyond FLT_MAX -> +-FLT_MAX)",
                 f"{OPENVINO} CPU"),
    _value_fault("int64_held_in_32_bits", "i64 / u64 results held in 32 bits (low 32 bits, sign-extended)",
                 f"{OPENVINO} CPU"),
    _value_fault("float8_saturated", "conversions to float8 saturate (+-Inf -> +-57344 for f8e5m2)",
                 "not seen; modelled as ONNX Cast's default saturate=1 used for the conversion (the model's function "
                 "body writes saturate=0)"),
    _value_fault("float8_decoded_as_normals", "f8e4m3 / f8e5m2 inputs decoded as normal numbers whatever the exponent "
                 "(0 -> 2**-bias, subnormals gain the implicit 1, f8e5m2 Inf -> 65536, NaN -> 480 / 98304)",
                 "TVM 0.27 (the function body's Cast from float8, measured here: the baseline of issue 21's "
                 "ConvertPromoteTypes failures with a float8 input: 0 -> 0.0078125, NaN 0x7f -> 480, Inf -> 65536)"),
)

BY_NAME = {f.name: f for f in FAULTS}
REFERENCE = Fault(f"{FAMILY}.reference", "the reference (no fault): for tests and diagnosis baselines",
                  make_node(decide_reference, convert_reference))
DECISION_FAULTS = tuple(f for f in FAULTS if f.fn.convert is convert_reference)
VALUE_FAULTS = tuple(f for f in FAULTS if f not in DECISION_FAULTS)


def short_name(fault: Fault) -> str:
    return fault.name.split(".", 1)[1]


# ---------------------------------------------------------------------------------------
# running and judging
# ---------------------------------------------------------------------------------------
def _lookup(fault: Fault):
    def lookup(d: str, o: str):
        return fault.fn if (domain_of(d), o) == (ref.DOMAIN, ref.OP_TYPE) else reference_lookup(d, o)
    return lookup


def run(fault: Fault, model, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The fault's outputs on one data set; [] where the fault refuses the model (a backend that raises where
    the spec requires a result fails the case)."""
    try:
        return run_program(compile_model(model, _lookup(fault)), inputs)
    except ref.PromotionError:
        return []


def refuses(fault: Fault, model, meta: dict | None = None) -> bool:
    """Does the fault refuse the model before any data (what a negative case requires)? Decided from the
    graph inputs' element types and static shapes and the node's attributes. A negative case kills a fault
    that accepts it."""
    ins, _ = graph_io_types(model)
    shapes = static_shapes(model)
    for node in model.graph.node:
        if (domain_of(node.domain), node.op_type) != (ref.DOMAIN, ref.OP_TYPE):
            continue
        types = dict(ins)
        attrs = ref.node_attributes({a.name: decode_attribute(a) for a in node.attribute})
        t0, t1 = types[node.input[0]], types[node.input[1]]
        d = fault.fn.decide(t0, t1, shapes[node.input[0]], shapes[node.input[1]], attrs)
        if d.common is None:
            return True
    return False


def killed(fault: Fault, case_meta: dict, expected_outputs: list[np.ndarray],
           fault_outputs: list[np.ndarray]) -> bool:
    """Would a backend with this fault fail the data set? No outputs (a refusal), a different element type,
    shape or value (strict comparison of the case)."""
    if len(fault_outputs) != len(expected_outputs):
        return True
    for e, f in zip(expected_outputs, fault_outputs):
        if np.asarray(e).dtype != np.asarray(f).dtype:
            return True
    types = [dtypes.from_numpy(np.asarray(e).dtype) for e in expected_outputs]
    return differs(expected_outputs, fault_outputs, types, case_meta.get("compare"))
