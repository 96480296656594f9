"""The ConvertPromoteTypes-14 reference against every example of the spec text, its rules one by one, and
properties over every pair: order independence, safe mode agreeing with unsafe mode where it gives a type,
errors only in safe mode, shapes mattering only where the spec says, and the values (Cast, the range rule)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from generator import dtypes
from generator.reference import convert_promote_types as ref
from generator.reference import lookup
from generator.reference.cast import cast

TYPES = ref.spec_types()
RANKS = [(1, 1), (0, 1), (1, 0), (0, 0), (2, 3)]
ATTRS = [dict(promote_unsafe=u, pytorch_scalar_promotion=p) for u in (False, True) for p in (False, True)]


def T(name: str) -> dtypes.DType:
    return ref.element_type(name)


def common(a: str, b: str, ranks=(1, 1), **attrs) -> str | None:
    d = ref.decide(T(a), T(b), *ranks, **attrs)
    return ref.element_name(d.common) if d.common else None


# Every example of ConvertPromoteTypes-14.txt, copied from its text: (lhs, rhs, ranks, attributes, result).
# None: listed under "Promotions that will cause exceptions when promote_unsafe will be set to false".
SPEC_EXAMPLES = [
    ("i8", "f32", (1, 1), {}, "f32"),
    ("i32", "u8", (1, 1), {}, "i32"),
    ("f16", "i64", (1, 1), {"promote_unsafe": True}, "f16"),
    ("f64", "u64", (1, 1), {"promote_unsafe": True}, "f64"),
    ("i8", "u8", (1, 1), {"promote_unsafe": True}, "i16"),
    ("f16", "bf16", (1, 1), {"promote_unsafe": True}, "f32"),
    ("f8e4m3", "f8e5m2", (1, 1), {"promote_unsafe": True}, "f16"),
    ("u64", "i8", (1, 1), {"promote_unsafe": True}, "f32"),
    ("f16", "i64", (1, 1), {}, None),
    ("f64", "u64", (1, 1), {}, None),
    ("i8", "u8", (1, 1), {}, None),
    ("f16", "bf16", (1, 1), {}, None),
    ("f8e4m3", "f8e5m2", (1, 1), {}, None),
    ("u64", "i8", (1, 1), {}, None),
    # PyTorch-like mode: S(i64), D(u8) -> u8 ("Rules of safe promotion ... apply": an error in safe mode)
    ("i64", "u8", (0, 1), {"pytorch_scalar_promotion": True, "promote_unsafe": True}, "u8"),
    ("i64", "u8", (0, 1), {"pytorch_scalar_promotion": True}, None),
    ("f16", "i8", (0, 1), {"pytorch_scalar_promotion": True}, "f16"),
    # Example 1, 2, 3 (XML)
    ("f16", "f32", (2, 1), {}, "f32"),
    ("i16", "u32", (2, 1), {"promote_unsafe": True}, "i64"),
    ("i16", "u64", (2, 1), {"promote_unsafe": True, "u64_integer_promotion_target": "f32"}, "f32"),
]


@pytest.mark.parametrize("a, b, ranks, attrs, result", SPEC_EXAMPLES)
def test_every_example_of_the_spec(a, b, ranks, attrs, result):
    assert common(a, b, ranks, **attrs) == result
    assert common(b, a, ranks[::-1], **attrs) == result


def test_family_examples_match_the_spec_text():
    from generator.families.convert_promote_types.variant import SPEC_EXAMPLES as FAMILY_EXAMPLES

    def key(a, b, attrs, result):
        return (a, b, bool(attrs.get("promote_unsafe")), bool(attrs.get("pytorch_scalar_promotion")), result)

    have = sorted(key(a, b, attrs, result) for _, a, b, _, attrs, result in FAMILY_EXAMPLES)
    assert have == sorted(key(a, b, attrs, result) for a, b, _, attrs, result in SPEC_EXAMPLES)


def _all_decisions():
    for a, b in itertools.product(TYPES, TYPES):
        for ranks in RANKS:
            for attrs in ATTRS:
                yield a, b, ranks, attrs, ref.decide(a, b, *ranks, **attrs)


def test_order_of_inputs_does_not_matter():
    for a, b, ranks, attrs, d in _all_decisions():
        swapped = ref.decide(b, a, *ranks[::-1], **attrs)
        assert (swapped.common, swapped.error) == (d.common, d.error), (a.name, b.name, ranks, attrs)


def test_safe_mode_type_is_the_unsafe_mode_type_and_errors_only_in_safe_mode():
    for a, b, ranks, attrs, d in _all_decisions():
        if attrs["promote_unsafe"]:
            assert d.common is not None and d.error is None, (a.name, b.name, ranks, attrs)
        else:
            unsafe = ref.decide(a, b, *ranks, **dict(attrs, promote_unsafe=True))
            assert d.common in (None, unsafe.common), (a.name, b.name, ranks, attrs)
            assert (d.common is None) == (d.error is not None)


def test_shapes_matter_only_with_pytorch_scalar_promotion_and_equal_priority():
    for a, b, ranks, attrs, d in _all_decisions():
        base = ref.decide(a, b, 1, 1, **attrs)
        if not attrs["pytorch_scalar_promotion"] or ref.priority(a) != ref.priority(b) or (ranks[0] == 0) == (ranks[1] == 0):
            assert (d.common, d.error) == (base.common, base.error), (a.name, b.name, ranks, attrs)


def test_the_common_type_holds_both_inputs_in_safe_mode():
    """Where safe mode gives a type, every value of either input converts to it without leaving its range."""
    for a, b in itertools.product(TYPES, TYPES):
        d = ref.decide(a, b, 1, 1)
        if d.common is None:
            continue
        for t in (a, b):
            x = t.all_values() if t.bits <= 8 and t.kind != "bool" else np.array(
                [t.int_min, t.int_max] if t.kind != "float" else [-t.finite_max, t.finite_max, np.inf, np.nan],
                dtype=object if t.kind == "uint" and t.bits == 64 else None).astype(t.np_dtype)
            bad = ref.convert(x, t, d.common).mask()
            assert not bad.any(), (a.name, b.name, t.name, x[bad][:3])


@pytest.mark.parametrize("a, b, want", [
    ("boolean", "boolean", "boolean"), ("boolean", "i4", "i4"), ("boolean", "f8e5m2", "f8e5m2"),
    ("u8", "u32", "u32"), ("i4", "i64", "i64"), ("u4", "i8", "i8"), ("i32", "u16", "i32"),
    ("f8e4m3", "f16", "f16"), ("f8e5m2", "bf16", "bf16"), ("bf16", "f32", "f32"), ("f16", "f64", "f64"),
    ("i8", "f16", "f16"), ("u16", "f32", "f32"), ("i32", "f64", "f64"), ("u4", "f8e5m2", "f8e5m2"),
    ("i4", "f8e4m3", "f8e4m3"),
])
def test_safe_promotions(a, b, want):
    assert common(a, b) == want


@pytest.mark.parametrize("a, b, unsafe, reason", [
    ("i8", "u8", "i16", ref.ERR_WIDENING), ("i4", "u4", "i8", ref.ERR_WIDENING),
    ("i16", "u32", "i64", ref.ERR_WIDENING), ("f16", "bf16", "f32", ref.ERR_WIDENING),
    ("f8e4m3", "f8e5m2", "f16", ref.ERR_WIDENING), ("i8", "f8e4m3", "f8e4m3", ref.ERR_INT_TO_FLOAT),
    ("i16", "bf16", "bf16", ref.ERR_INT_TO_FLOAT), ("i32", "f32", "f32", ref.ERR_INT_TO_FLOAT),
    ("u64", "f64", "f64", ref.ERR_INT_TO_FLOAT), ("u64", "i4", "f32", ref.ERR_U64_SIGNED),
    ("i64", "u64", "f32", ref.ERR_U64_SIGNED),
])
def test_safe_mode_errors_with_their_reason(a, b, unsafe, reason):
    with pytest.raises(ref.PromotionError) as info:
        ref.common_type(T(a), T(b))
    assert info.value.reason == reason
    assert common(a, b, promote_unsafe=True) == unsafe


@pytest.mark.parametrize("target", ["f32", "f64", "f16", "bf16", "f8e4m3", "i64", "u64", "i32", "boolean"])
def test_u64_with_signed_goes_to_the_target(target):
    for s in ("i4", "i8", "i16", "i32", "i64"):
        assert common("u64", s, promote_unsafe=True, u64_integer_promotion_target=target) == target
        assert common(s, "u64", promote_unsafe=True, u64_integer_promotion_target=target) == target
    assert common("u64", "u8", promote_unsafe=True, u64_integer_promotion_target=target) == "u64"
    assert common("u64", "f32", promote_unsafe=True, u64_integer_promotion_target=target) == "f32"


@pytest.mark.parametrize("scalar, dim, safe", [
    ("i64", "u8", None), ("u8", "i8", None), ("u4", "i4", None), ("u16", "i32", "i32"), ("i8", "u64", None),
    ("u64", "i8", None), ("u8", "u64", "u64"), ("i16", "i8", None), ("i8", "i16", "i16"),
    ("f32", "f16", None), ("f16", "bf16", "bf16"), ("bf16", "f16", None), ("f32", "bf16", None),
    ("f8e4m3", "f8e5m2", "f8e5m2"), ("f8e5m2", "f8e4m3", None), ("f16", "f32", "f32"),
])
def test_pytorch_scalar_promotion_takes_the_dimensioned_type(scalar, dim, safe):
    attrs = dict(pytorch_scalar_promotion=True)
    assert common(scalar, dim, (0, 1), **attrs) == safe
    assert common(dim, scalar, (3, 0), **attrs) == safe
    assert common(scalar, dim, (0, 1), promote_unsafe=True, **attrs) == dim
    # not with two scalars, two dimensioned tensors, or without the attribute
    assert common(scalar, dim, (0, 0), promote_unsafe=True, **attrs) == common(scalar, dim, (1, 1), promote_unsafe=True)
    assert common(scalar, dim, (0, 1), promote_unsafe=True) == common(scalar, dim, (1, 1), promote_unsafe=True)


def test_pytorch_scalar_promotion_ignores_mixed_priorities():
    assert common("f16", "i8", (0, 1), pytorch_scalar_promotion=True) == "f16"
    assert common("i64", "f16", (1, 0), pytorch_scalar_promotion=True, promote_unsafe=True) == "f16"
    assert common("boolean", "u8", (1, 0), pytorch_scalar_promotion=True) == "u8"


def test_names_and_bad_input():
    assert [ref.element_name(t) for t in TYPES] == list(ref.SPEC_TYPE_NAMES)
    assert ref.element_name("float8e4m3fnuz") is None and ref.element_name("float6e2m3") is None
    assert ref.element_type("f8e4m3") == dtypes.get("float8e4m3fn")
    with pytest.raises(ValueError, match="unknown element type"):
        ref.decide("int8", "uint64", 1, 1, promote_unsafe=True, u64_integer_promotion_target="float32")
    with pytest.raises(ValueError, match="not an element type"):
        ref.decide("float8e4m3fnuz", "int8", 1, 1)


# ---- values ------------------------------------------------------------------------------
def _why(x, src, to):
    return ref.convert(np.array(x, dtype=object).astype(dtypes.get(src).np_dtype), src, to).mask().tolist()


def test_values_outside_the_common_range_are_undefined():
    assert _why([0, 255, 256, -1, -129], "int64", "uint8") == [False, False, True, True, True]
    assert _why([65504, 65519, 65520, -65520], "int32", "float16") == [False, False, True, True]
    assert _why([448, 464, 465], "int16", "float8e4m3fn") == [False, False, True]
    assert _why([57344, 61439, 61440], "int32", "float8e5m2") == [False, False, True]
    assert _why([2**64 - 1, 2**63], "uint64", "int64") == [True, True]
    assert _why([-1, 0], "int8", "uint64") == [True, False]
    f32 = dtypes.get("float")
    assert _why([np.inf, -np.inf, np.nan, 1e30, 3.4e38], "float", "bfloat16") == [False, False, False, False, True]
    assert _why([np.inf, np.nan, 448.0, 1e-9], "float", "float8e4m3fn") == [True, False, False, False]
    assert f32.is_float


def test_values_are_cast_without_saturation():
    e5m2 = dtypes.get("float8e5m2")
    x = np.array([np.inf, -np.inf, 57344, -0.0], dtype=e5m2.np_dtype)
    out = ref.convert(x, e5m2, e5m2)  # an input already of the common type keeps every value
    y = out.outputs[0]
    assert out.defined and (e5m2.to_bits(y) == e5m2.to_bits(x)).all()
    u4 = dtypes.get("uint4")
    out = ref.convert(u4.all_values(), u4, e5m2)  # rounded as Cast rounds: 9 -> 8, 11 -> 12 (RNE)
    y = out.outputs[0]
    want, _ = cast(u4.all_values(), u4, e5m2)
    assert out.defined and (e5m2.to_bits(y) == e5m2.to_bits(want)).all()
    assert y[9] == 8 and y[11] == 12
    i64 = dtypes.get("int64")
    out = ref.convert(np.array([2**53 + 1, 2**53 + 3, -(2**63)], dtype=np.int64), i64, "double")
    y = out.outputs[0]
    assert out.defined and y.tolist() == [2.0**53, 2.0**53 + 4, -(2.0**63)]


def test_node_function_and_validation():
    fn = lookup(ref.DOMAIN, ref.OP_TYPE)
    i8, u8 = dtypes.get("int8"), dtypes.get("uint8")
    x0, x1 = np.array([-128, 127], np.int8), np.array(255, np.uint8)
    y0, y1 = fn([x0, x1], {"promote_unsafe": 1}, 14, [i8, u8])
    assert y0.dtype == np.int16 and y1.dtype == np.int16 and y1.shape == () and int(y1) == 255
    assert y0.tolist() == [-128, 127]
    with pytest.raises(ref.PromotionError):
        fn.validate({}, 14, [i8, u8], [1, 0])
    # a scalar beside a dimensioned tensor: pytorch_scalar_promotion takes the dimensioned type
    assert fn.validate({"promote_unsafe": 1, "pytorch_scalar_promotion": 1}, 14, [i8, u8], [1, 0]) == i8
    assert fn.validate({"u64_integer_promotion_target": b"f64", "promote_unsafe": 1}, 14,
                       [dtypes.get("uint64"), i8], [1, 1]) == dtypes.get("double")
