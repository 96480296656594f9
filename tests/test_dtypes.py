"""generator/dtypes.py against onnx.defs, onnx.helper, numpy / ml_dtypes finfo and the bit layouts.

Out of scope here: what Cast does with the types (tests/test_cast_reference.py).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, defs, helper

from generator import dtypes

LATEST_OPSET = defs.onnx_opset_version()
# Cast-1..5 took `to` as a string; the registry starts at Cast-6, the first Cast with an integer
# `to`. Cast-1 accepts exactly the types of Cast-6 (checked below), so nothing is lost.
FIRST_OPSET = 6
OPSETS = range(FIRST_OPSET, LATEST_OPSET + 1)
FLOATS = [d for d in dtypes.all_dtypes() if d.is_float]
ENUMERABLE = [d for d in dtypes.all_dtypes() if d.is_numeric and d.bits <= 16 and d.kind != "bool"]


def schema_types(opset: int) -> set[str]:
    """Element types Cast accepts at `opset`: T1 and T2 of onnx.defs, "tensor(x)" -> "x"."""
    schema = defs.get_schema("Cast", opset)
    constraints = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    assert constraints["T1"] == constraints["T2"], f"Cast-{schema.since_version}: T1 != T2"
    names = set()
    for t in constraints["T1"]:
        assert t.startswith("tensor(") and t.endswith(")"), t
        names.add(t[len("tensor("):-1])
    return names


def ids(d):
    return d.name


# ---- the types Cast accepts -------------------------------------------------------------
@pytest.mark.parametrize("opset", OPSETS)
def test_cast_types_equal_onnx_schema(opset):
    registry = {d.name for d in dtypes.cast_types(opset)}
    onnx_side = schema_types(opset)
    assert registry == onnx_side, (
        f"Cast-{opset}: only in onnx.defs {sorted(onnx_side - registry)}, "
        f"only in dtypes.cast_types {sorted(registry - onnx_side)}")


def test_cast_types_before_first_opset_are_those_of_cast_6():
    base = {d.name for d in dtypes.all_dtypes() if d.cast_since == FIRST_OPSET}
    for opset in range(1, FIRST_OPSET):
        assert schema_types(opset) == base, opset
    assert dtypes.cast_types(FIRST_OPSET - 1) == ()


@pytest.mark.parametrize("d", [d for d in dtypes.all_dtypes() if d.cast_since], ids=ids)
def test_cast_since_is_first_accepting_opset(d):
    assert d.name in schema_types(d.cast_since)
    if d.cast_since > FIRST_OPSET:
        assert d.name not in schema_types(d.cast_since - 1)
    assert all(d.name in schema_types(v) for v in range(d.cast_since, LATEST_OPSET + 1))


def test_types_cast_never_accepts():
    for d in dtypes.all_dtypes():
        if not d.cast_since:
            for opset in range(1, LATEST_OPSET + 1):
                assert d.name not in schema_types(opset), f"Cast-{opset} accepts {d.name}"


# ---- ONNX enum <-> numpy dtype <-> name ---------------------------------------------------
@pytest.mark.parametrize("d", dtypes.all_dtypes(), ids=ids)
def test_enum_numpy_and_name_agree_with_onnx(d):
    assert TensorProto.DataType.Name(d.onnx).lower() == d.name
    assert np.dtype(helper.tensor_dtype_to_np_dtype(d.onnx)) == d.np_dtype
    assert dtypes.get(d.onnx) is d
    assert dtypes.get(d.name) is d
    assert dtypes.get(d.name.upper()) is d
    assert dtypes.get(d) is d
    assert dtypes.from_numpy(d.np_dtype) is d


def test_every_onnx_tensor_type_cast_accepts_is_registered():
    for name in schema_types(LATEST_OPSET):
        assert dtypes.get(getattr(TensorProto, name.upper())).name == name


def test_aliases_and_unknown_names():
    assert dtypes.get("float32") is dtypes.get("float")
    assert dtypes.get("float64") is dtypes.get("double")
    assert dtypes.short(dtypes.get("float")) == "float32"
    assert dtypes.short(dtypes.get("double")) == "float64"
    assert dtypes.short(dtypes.get("float16")) == "float16"
    with pytest.raises(KeyError):
        dtypes.get("float7")
    with pytest.raises(KeyError):
        dtypes.get(12345)
    assert dtypes.from_numpy(np.dtype("U3")).name == "string"


@pytest.mark.parametrize("d", [d for d in dtypes.all_dtypes() if d.is_numeric], ids=ids)
def test_bits_and_integer_range(d):
    if d.kind == "bool":
        assert (d.bits, d.int_min, d.int_max) == (8, 0, 1)
        return
    info = ml_dtypes.finfo(d.np_dtype) if d.is_float else ml_dtypes.iinfo(d.np_dtype)
    assert info.bits == d.bits
    if d.bits >= 8:
        assert d.np_dtype.itemsize * 8 == d.bits
    if d.is_integer:
        assert (d.int_min, d.int_max) == (int(info.min), int(info.max))


# ---- float facts --------------------------------------------------------------------------
@pytest.mark.parametrize("d", FLOATS, ids=ids)
def test_float_range_against_finfo(d):
    fi = ml_dtypes.finfo(d.np_dtype)  # np.finfo for float16 / float32 / float64
    if d.np_dtype in (np.float16, np.float32, np.float64):
        fi = np.finfo(d.np_dtype)
    assert d.finite_max == float(fi.max)
    assert d.smallest_normal == float(fi.smallest_normal)
    assert d.smallest_subnormal == float(fi.smallest_subnormal)
    assert d.mantissa_bits == fi.nmant
    assert d.exponent_bits == fi.nexp
    assert d.min_exponent == fi.minexp


@pytest.mark.parametrize("d", FLOATS, ids=ids)
def test_nan_and_inf_encodings(d):
    if d.nan_bits is None:
        assert not d.has_nan and d.nan_style == dtypes.NONE
    else:
        v = d.from_bits(np.array([d.nan_bits]))
        assert np.isnan(v.astype(np.float64)).all() and d.isnan(v).all()
        assert not np.signbit(v.astype(np.float64))[0] or d.nan_style == dtypes.FNUZ
    if d.negative_nan_bits is not None:
        v = d.from_bits(np.array([d.negative_nan_bits])).astype(np.float64)
        assert np.isnan(v[0]) and np.signbit(v[0])
    if d.inf_bits is None:
        assert not d.has_inf
    else:
        v = d.from_bits(np.array([d.inf_bits, d.inf_bits | d.sign_mask])).astype(np.float64)
        assert v.tolist() == [np.inf, -np.inf]


@pytest.mark.parametrize("d", [d for d in FLOATS if d.bits <= 16], ids=ids)
def test_float_flags_match_the_enumerated_values(d):
    with np.errstate(invalid="ignore"):
        v = d.all_values().astype(np.float64)
    nan = np.isnan(v)
    assert d.has_nan == bool(nan.any())
    assert d.has_inf == bool(np.isinf(v).any())
    assert d.has_negative_zero == bool(((v == 0) & np.signbit(v)).any())
    assert (d.isnan(d.all_values()) == nan).all()
    finite = v[np.isfinite(v)]
    assert finite.max() == d.finite_max
    assert finite[finite > 0].min() == d.smallest_subnormal
    # NaN patterns per style: IEEE all-ones exponent with a non-zero mantissa; FN S.1111.111;
    # FNUZ only 1.000...0; E8M0 only 0xFF; no NaN for float4 / float6
    e, m = d.exponent_bits, d.mantissa_bits
    b = np.arange(1 << d.bits)
    expo = (b >> m) & ((1 << e) - 1)
    mant = b & ((1 << m) - 1)
    expected = {
        dtypes.IEEE: (expo == (1 << e) - 1) & (mant != 0),
        dtypes.FN: (expo == (1 << e) - 1) & (mant == (1 << m) - 1),
        dtypes.FNUZ: b == 1 << (d.bits - 1),
        dtypes.E8M0: b == 0xFF,
        dtypes.NONE: np.zeros(b.shape, bool),
    }[d.nan_style]
    assert (nan == expected).all()


def test_float8_saturate_types():
    assert [d.name for d in dtypes.all_dtypes() if d.is_float8] == [
        "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"]


# ---- bit patterns -------------------------------------------------------------------------
@pytest.mark.parametrize("d", ENUMERABLE, ids=ids)
def test_bits_round_trip_over_all_values(d):
    n = 1 << d.bits
    v = d.all_values()
    assert v.dtype == d.np_dtype and v.shape == (n,)
    bits = d.to_bits(v)
    assert bits.dtype == d.bits_dtype
    assert (bits.astype(np.int64) == np.arange(n)).all()
    back = d.from_bits(bits)
    assert back.tobytes() == v.tobytes()


@pytest.mark.parametrize("d", [d for d in dtypes.all_dtypes() if d.kind in ("int", "uint") and d.bits < 8], ids=ids)
def test_sub_byte_integers_use_ml_dtypes_storage(d):
    """from_bits must give the same bytes as ml_dtypes' own construction (byte-exact round trip):
    an int4 -8 is the byte ml_dtypes makes for -8, whatever that is."""
    values = np.arange(d.int_min, d.int_max + 1)
    canonical = values.astype(d.np_dtype)
    bits = d.to_bits(canonical)
    assert (bits.astype(np.int64) == values % (1 << d.bits)).all()
    assert d.from_bits(bits).tobytes() == canonical.tobytes()
    assert d.all_values().tobytes() == d.from_bits(np.arange(1 << d.bits)).tobytes()
    assert sorted(d.all_values().astype(np.int64).tolist()) == values.tolist()


@pytest.mark.parametrize("d", [d for d in dtypes.all_dtypes() if d.is_numeric and d.bits > 16], ids=ids)
def test_bits_round_trip_wide_types(d):
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 1 << 63, 10_000, dtype=np.uint64, endpoint=True).astype(d.bits_dtype)
    bits[:2] = [0, np.iinfo(d.bits_dtype).max]
    v = d.from_bits(bits)
    assert v.dtype == d.np_dtype
    assert (d.to_bits(v) == bits).all()
    with pytest.raises(ValueError):
        d.all_values()


def test_bool_bits():
    d = dtypes.get("bool")
    v = np.array([False, True])
    assert d.to_bits(v).tolist() == [0, 1]
    assert d.from_bits(np.array([0, 1])).tolist() == [False, True]


def test_float_bits_against_numpy_views():
    for name, np_bits in (("float16", np.uint16), ("float", np.uint32), ("double", np.uint64)):
        d = dtypes.get(name)
        x = np.array([1.0, -2.5, np.inf, -0.0], dtype=d.np_dtype)
        assert (d.to_bits(x) == x.view(np_bits)).all()
    assert dtypes.get("float").nan_bits == 0x7FC00000
    assert dtypes.get("float16").nan_bits == 0x7E00
    assert dtypes.get("bfloat16").nan_bits == 0x7FC0
    assert dtypes.get("float8e4m3fn").nan_bits == 0x7F
    assert dtypes.get("float8e4m3fn").negative_nan_bits == 0xFF
    assert dtypes.get("float8e4m3fnuz").nan_bits == 0x80
    assert dtypes.get("float8e5m2").inf_bits == 0x7C
    assert dtypes.get("float8e8m0").nan_bits == 0xFF


def test_numpy_native_types_are_numpy_s_own():
    """The runner hands these to onnxruntime as numpy buffers: exactly the ONNX types numpy itself has."""
    assert {d.name for d in dtypes.all_dtypes() if d.is_numpy_native} == {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float", "double"}
