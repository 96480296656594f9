"""OpenVINO ConvertPromoteTypes-14, written from OpenVINO's ConvertPromoteTypes-14 operation specification
(ConvertPromoteTypes-14.txt, docs/specs.md; [CPT] below).

The operator finds the common element type of its two inputs and returns both inputs converted to it.
The type decision is `decide` / `common_type`; the values are ONNX Cast of each input to that type (our
Cast reference, generator.reference.cast). Clauses of [CPT] cited below, by their opening words:

  [priority]   "If inputs have different type of data ... floating-point types have higher priority than
               integer, and integer have higher priority than boolean."
  [int->float] the first Note: "conversion will fail if floating-point bit-width would be less than double
               of integer" (promote_unsafe = false).
  [same]       "If both inputs have same type of data ... bit-width and sign to hold all possible values
               supported by input data types, except when used with pytorch_scalar_promotion."
  [pytorch]    "In case where pytorch_scalar_promotion is set to true, one of inputs is scalar-tensor ..."
  [float]      "In case of floating-point types, resulting type is type with lowest bit-width of mantissa
               and exponential ..." with the (f8e4m3, f8e5m2) -> f16 special case.
  [integer]    "In case of integer types ... signed integer with bit-width of at least double than unsigned
               input ... Exception is for u64 and any signed integers ... u64_integer_promotion_target".
  [safe]       the Note under [integer]: "If promote_unsafe is set to false ... bit widening, promotions of
               u64 with any signed integer, or promotion causing conversion to type with lower range of
               values, exceptions will be raised."
  [order]      "Promotion rules does not depend on order of inputs or values ... Shape of tensors may affect
               type only when pytorch_scalar_promotion is set to true and both inputs have same type priority."

Decisions where [CPT] is silent or ambiguous (each with its reason in docs/convert_promote_types.md):
  - pytorch_scalar_promotion takes precedence over the [integer] rules, the u64 exception included
    ([same]: "except when used with pytorch_scalar_promotion").
  - "type with lower range" means: the range [min, max] of the result does not contain the range of an
    input (floats: [-max finite, +max finite]). Precision is not range: S(f16), D(bf16) is safe.
  - S(i64), D(u8) in safe mode is an error (the example's "Rules of safe promotion ... apply").
  - [int->float] is the only safe-mode rule for integer + float: u4 + f8e5m2 is safe although f8e5m2
    holds 4-bit integers inexactly; the values are then rounded as Cast rounds them.
  - Values: an element outside the common type's range (integers: [min, max]; floats: rounded magnitude
    above the largest finite value, or an infinity where the type has none) is undefined ([CPT]: "may
    result in undefined behaviors"), whatever ONNX Cast would give. Everything else is Cast.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import cast as cast_ref

SPEC_FILE = "ConvertPromoteTypes-14.txt"
DOMAIN = "org.openvinotoolkit"
OP_TYPE = "ConvertPromoteTypes"
VERSION = 14
DEFAULT_TARGET = "f32"  # u64_integer_promotion_target's default [CPT, Attributes]

# The element types [CPT]'s rules speak of, in OpenVINO's notation. u1 has no ONNX element type, so no
# case file can hold it (see docs/convert_promote_types.md).
SPEC_TYPE_NAMES = ("boolean", "u4", "u8", "u16", "u32", "u64", "i4", "i8", "i16", "i32", "i64",
                   "f8e4m3", "f8e5m2", "f16", "bf16", "f32", "f64")

# Why safe mode refuses a pair (the clause that says so).
ERR_INT_TO_FLOAT = "integer -> floating-point whose bit-width is less than double the integer's [CPT: first Note]"
ERR_WIDENING = "promotion needs bit widening beyond both inputs [CPT: Note under integer types]"
ERR_U64_SIGNED = "u64 with a signed integer [CPT: Note under integer types]"
ERR_LOWER_RANGE = ("the common type has a lower range of values than an input [CPT: Note under integer types; "
                   "pytorch_scalar_promotion: 'Rules of safe promotion ... apply']")
UNDEF_RANGE = ("value outside the common type's range [CPT: 'undefined behaviors caused by difference in "
               "maximum/minimum values'; pytorch_scalar_promotion: 'may result in undefined behaviors']")

CLAUSE_EQUAL = "same element type: nothing to promote"
CLAUSE_PRIORITY = "type priority: floating-point > integer > boolean"
CLAUSE_PYTORCH = "pytorch_scalar_promotion: the dimensioned input's type"
CLAUSE_FLOAT = "floating-point: lowest bit-width fitting both mantissas and exponents"
CLAUSE_FLOAT8 = "floating-point: (f8e4m3, f8e5m2) -> f16 special case"
CLAUSE_INT_SAME_SIGN = "integer types: minimal bit-width holding both, same sign"
CLAUSE_INT_MIXED_SIGN = "integer types: signed, at least double the unsigned width"
CLAUSE_U64 = "integer types: u64 with a signed integer -> u64_integer_promotion_target"


class PromotionError(ValueError):
    """Safe mode refuses the pair: `reason` is one of the ERR_* texts, `clause` the rule that applied."""

    def __init__(self, reason: str, clause: str):
        super().__init__(reason)
        self.reason = reason
        self.clause = clause


# ---------------------------------------------------------------------------------------
# OpenVINO element-type names <-> the dtypes registry
# ---------------------------------------------------------------------------------------
def element_name(t: DType | str) -> str | None:
    """OpenVINO's name of an element type ("i8", "f8e4m3", "boolean"), or None if OpenVINO has none.

    Derived from the registry's facts: OpenVINO's f8e4m3 is OCP E4M3 (the FN variant, no Inf); it has no
    FNUZ float8 and no float6."""
    t = dtypes.get(t)
    if t.kind == "bool":
        return "boolean"
    if t.kind == "string":
        return "string"
    if t.kind in ("int", "uint"):
        return ("i" if t.kind == "int" else "u") + str(t.bits)
    if t.bits == 16 and t.exponent_bits == 8:
        return "bf16"
    if t.bits in (16, 32, 64) and t.nan_style == dtypes.IEEE:
        return f"f{t.bits}"
    if t.nan_style in (dtypes.FNUZ,) or t.bits == 6:
        return None
    return f"f{t.bits}e{t.exponent_bits}m{t.mantissa_bits}"


def element_type(name: str) -> DType:
    """The registry's type for an OpenVINO element-type name. Raises ValueError for an unknown name."""
    for t in dtypes.all_dtypes():
        if element_name(t) == name:
            return t
    raise ValueError(f"unknown element type {name!r} (OpenVINO names such as 'f32', 'i64', 'bf16')")


@functools.cache
def spec_types() -> tuple[DType, ...]:
    """The element types [CPT]'s rules cover that an ONNX tensor can hold, in SPEC_TYPE_NAMES order."""
    return tuple(element_type(n) for n in SPEC_TYPE_NAMES)


# ---------------------------------------------------------------------------------------
# the common type
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Decision:
    """What [CPT] says for one pair: the common type, or (common None) the error safe mode raises."""

    common: DType | None
    clause: str
    error: str | None = None


def priority(t: DType) -> int:
    """[priority]: boolean 0 < integer 1 < floating-point 2."""
    return {"bool": 0, "int": 1, "uint": 1, "float": 2}[t.kind]


def _range(t: DType) -> tuple[float, float]:
    """The range of values of a type ([safe]: "type with lower range of values"): [min, max] of an integer type,
    [-largest finite, +largest finite] of a float type."""
    if t.is_float:
        return -t.finite_max, t.finite_max
    return t.int_min, t.int_max


def _holds_range(big: DType, small: DType) -> bool:
    """True if every value in `small`'s range lies in `big`'s range ([safe]: "lower range of values")."""
    (lo_b, hi_b), (lo_s, hi_s) = _range(big), _range(small)
    return lo_b <= lo_s and hi_s <= hi_b


def _signed_int(bits: int) -> DType | None:
    """The narrowest signed integer type of [CPT] with at least `bits` bits."""
    fits = [t for t in spec_types() if t.kind == "int" and t.bits >= bits]
    return min(fits, key=lambda t: t.bits) if fits else None


def _float_fit(a: DType, b: DType) -> tuple[DType, str]:
    """[float]: the lowest bit-width type whose mantissa and exponent fit both; a tie is the f16 special case."""
    fits = [t for t in spec_types() if t.is_float and t.exponent_bits >= max(a.exponent_bits, b.exponent_bits)
            and t.mantissa_bits >= max(a.mantissa_bits, b.mantissa_bits)]
    narrowest = min(t.bits for t in fits)
    best = [t for t in fits if t.bits == narrowest]
    if len(best) == 1:
        return best[0], CLAUSE_FLOAT
    # (f8e4m3, f8e5m2): f16 and bf16 both fit; [CPT] fixes f16
    return dtypes.get("float16"), CLAUSE_FLOAT8


def decide(t0: DType | str, t1: DType | str, rank0: int, rank1: int, *, promote_unsafe: bool = False,
           pytorch_scalar_promotion: bool = False, u64_integer_promotion_target: str = DEFAULT_TARGET) -> Decision:
    """[CPT] for inputs of element types t0, t1 and ranks rank0, rank1 (0 is a scalar): the common type
    and the rule that gave it, or, in safe mode, the error and its reason. Symmetric in the two inputs.

    Raises ValueError for a type [CPT]'s rules do not cover, or an unknown promotion target."""
    t0, t1 = dtypes.get(t0), dtypes.get(t1)
    covered = spec_types()
    for t in (t0, t1):
        if t not in covered:
            raise ValueError(f"{t.name}: not an element type the ConvertPromoteTypes rules cover")
    target = element_type(u64_integer_promotion_target)
    safe = not promote_unsafe

    def refuse(reason: str, clause: str, unsafe_type: DType) -> Decision:
        return Decision(None, clause, reason) if safe else Decision(unsafe_type, clause)

    if t0 == t1:
        return Decision(t0, CLAUSE_EQUAL)
    p0, p1 = priority(t0), priority(t1)
    if p0 != p1:  # [priority]; shapes do not matter here ([order], example S(f16), D(i8))
        high, low = (t0, t1) if p0 > p1 else (t1, t0)
        if high.is_float and low.is_integer and high.bits < 2 * low.bits:
            return refuse(ERR_INT_TO_FLOAT, CLAUSE_PRIORITY, high)
        return Decision(high, CLAUSE_PRIORITY)
    if pytorch_scalar_promotion and (rank0 == 0) != (rank1 == 0):  # [pytorch]
        scalar, dim = (t0, t1) if rank0 == 0 else (t1, t0)
        if not _holds_range(dim, scalar):
            return refuse(ERR_LOWER_RANGE, CLAUSE_PYTORCH, dim)
        return Decision(dim, CLAUSE_PYTORCH)
    if t0.is_float:  # [float]
        common, clause = _float_fit(t0, t1)
        if common not in (t0, t1):
            return refuse(ERR_WIDENING, clause, common)
        return Decision(common, clause)
    # [integer] (two booleans are the same type)
    if t0.kind == t1.kind:
        return Decision(max(t0, t1, key=lambda t: t.bits), CLAUSE_INT_SAME_SIGN)
    unsigned, signed = (t0, t1) if t0.kind == "uint" else (t1, t0)
    common = _signed_int(max(2 * unsigned.bits, signed.bits))
    if common is None:  # u64: i128 does not exist
        return refuse(ERR_U64_SIGNED, CLAUSE_U64, target)
    if common != signed:
        return refuse(ERR_WIDENING, CLAUSE_INT_MIXED_SIGN, common)
    return Decision(common, CLAUSE_INT_MIXED_SIGN)


def common_type(t0: DType | str, t1: DType | str, rank0: int = 1, rank1: int = 1, **attrs) -> DType:
    """The common type of [CPT] (see `decide`); raises PromotionError where safe mode refuses the pair."""
    d = decide(t0, t1, rank0, rank1, **attrs)
    if d.common is None:
        raise PromotionError(d.error, d.clause)
    return d.common


# ---------------------------------------------------------------------------------------
# the values
# ---------------------------------------------------------------------------------------
def convert(x: np.ndarray, src: DType | str, to: DType | str) -> Outcome:
    """One input converted to the common type: ONNX Cast [Cast.txt] without saturation (saturate=0), except
    that a value outside `to`'s range is undefined [CPT: "undefined behaviors"]. Without saturation every
    value inside the range keeps its meaning: an f8e5m2 input's own Inf stays Inf (saturate=1 would make it
    57344), as Inf does between the IEEE types. The Outcome's one output is y (x's shape); its undefined
    elements are Cast's own (none for a float target without saturation) and UNDEF_RANGE."""
    src, to = dtypes.get(src), dtypes.get(to)
    cast = cast_ref.cast_outcome(x, src, to, saturate=False)
    y = cast.outputs[0]
    # booleans fit everywhere; Cast defines every value -> bool; float -> integer ranges are Cast's own
    if src.kind == "bool" or to.kind == "bool" or src == to or (src.is_float and to.is_integer):
        return cast
    if to.is_integer:
        ints = np.array([int(v) for v in np.asarray(x).ravel().tolist()], dtype=object).reshape(np.shape(x))
        out = np.asarray((ints < to.int_min) | (ints > to.int_max), dtype=bool)
    else:
        # saturate=0: a finite value whose rounded magnitude exceeds the largest finite one ([x] > FLT_MAX)
        # becomes Inf or NaN; an Inf where `to` has none becomes NaN
        with np.errstate(invalid="ignore"):
            v = np.asarray(x).astype(np.float64)
            w = np.asarray(y).astype(np.float64)
        out = (np.isfinite(v) & ~np.isfinite(w)) | (np.isinf(v) & (not to.has_inf))
    out = out & ~cast.mask()
    return Outcome((y,), {**cast.undefined, UNDEF_RANGE: out}) if out.any() else cast


def convert_promote_types(x0: np.ndarray, x1: np.ndarray, t0: DType | str, t1: DType | str, **attrs) -> Outcome:
    """[CPT] on two tensors: the Outcome of (y0, y1), both of the common type (`common_type`). Raises
    PromotionError in safe mode where [safe] / [int->float] refuse the pair: a refusal is no outcome (the
    family makes it a negative case); attrs as for `decide`.

    The two outputs have their own shapes, and an Outcome's masks are shaped like its first output, so each
    reason's mask here is a bool scalar: some element of y0 or y1 is undefined for it. Where: `convert` of
    each input."""
    common = common_type(t0, t1, np.ndim(x0), np.ndim(x1), **attrs)
    each = [convert(x, t, common) for x, t in ((x0, t0), (x1, t1))]
    reasons = sorted({r for o in each for r in o.reasons})
    return Outcome((each[0].outputs[0], each[1].outputs[0]), {r: np.bool_(True) for r in reasons})


def node_attributes(attrs: dict) -> dict:
    """A node's attributes as keyword arguments of `decide`: ONNX has no bool attributes, so the two flags
    are ints (0 / 1); the target is OpenVINO's name of an element type."""
    target = attrs.get("u64_integer_promotion_target", DEFAULT_TARGET)
    if isinstance(target, bytes):
        target = target.decode()
    return {"promote_unsafe": bool(attrs.get("promote_unsafe", 0)),
            "pytorch_scalar_promotion": bool(attrs.get("pytorch_scalar_promotion", 0)),
            "u64_integer_promotion_target": target}


def validate_node(attrs: dict, opset: int, input_types: list[DType], input_ranks: list[int]) -> DType:
    """The common type of a ConvertPromoteTypes node from its input types and ranks, before any data:
    raises PromotionError where safe mode refuses the pair [CPT: Note under integer types]."""
    return common_type(input_types[0], input_types[1], input_ranks[0], input_ranks[1], **node_attributes(attrs))


def convert_promote_types_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                               input_types: list[DType]) -> list[np.ndarray]:
    """ConvertPromoteTypes as a graph node (opconform backend): both inputs cast to the common type [CPT]."""
    return list(convert_promote_types(inputs[0], inputs[1], input_types[0], input_types[1],
                                      **node_attributes(attrs)).outputs)


convert_promote_types_node.validate = validate_node  # the opconform backend refuses at prepare with it


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {(DOMAIN, OP_TYPE): convert_promote_types_node}
