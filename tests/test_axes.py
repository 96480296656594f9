"""generator/axes.py and DType.nan_encodings: the shared axes of generation (issue 21)."""

import ml_dtypes
import numpy as np
from onnx import helper

from generator import axes, dtypes


def test_nan_encodings_are_every_kind_of_nan_and_only_nans():
    for t in dtypes.all_dtypes():
        if not t.is_float:
            continue
        labels, values = axes.nan_values(t)
        assert len(labels) == len(set(labels)) == values.size
        if not t.has_nan:
            assert values.size == 0
            continue
        assert t.isnan(values).all(), t.name
        bits = [int(b) for b in t.to_bits(values)]
        assert len(set(bits)) == len(bits), t.name
        assert t.nan_bits in bits


def test_ieee_nan_encodings_hold_signalling_and_low_payloads():
    f32 = dtypes.get("float")
    enc = dict(f32.nan_encodings)
    assert enc["snan_min_payload"] == 0x7F800001  # quiet bit clear, payload in the lowest bit
    assert enc["qnan_low_payload"] == 0x7FC00001
    assert enc["neg_snan_min_payload"] == 0xFF800001
    # bfloat16 by add-and-shift: 0x7F800001 + 0x7FFF, >> 16 is 0x7F80, Inf: the axis must hold such a NaN
    assert any(((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0x7FFF == 0x7F80 for b in enc.values())
    # every NaN of the narrow formats (e5m2 has six, FNUZ one)
    e5m2 = dtypes.get("float8e5m2")
    assert sorted(b for _, b in e5m2.nan_encodings) == [0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF]
    assert [b for _, b in dtypes.get("float8e4m3fnuz").nan_encodings] == [0x80]


def test_nan_values_of_types_without_nan_are_empty():
    for name in ("string", "int8", "bool", "float4e2m1"):
        labels, values = axes.nan_values(name)
        assert labels == [] and values.size == 0


def test_nan_values_keep_signalling_bits():
    _, v = axes.nan_values("float")
    assert 0x7F800001 in v.view(np.uint32).tolist()
    _, v = axes.nan_values("bfloat16")
    assert v.dtype == ml_dtypes.bfloat16 and 0x7F81 in v.view(np.uint16).tolist()


def test_tail_places_the_decisive_elements_last():
    x = axes.with_tail(np.array([0, 1], np.int8), [9], 10)
    assert x.tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 9]
    assert axes.with_tail(np.array([0], np.int8), [7, 8, 9], 2).tolist() == [8, 9]
    sets = axes.tail_datasets(np.zeros(1, np.float32), [5.0], axes.tail_lengths(short=True, limit=20))
    assert [s.size for s in sets] == [n for n in axes.VECTOR_LENGTHS_SHORT if n <= 20]
    assert all(s[-1] == 5.0 and s.dtype == np.float32 for s in sets)
    assert set(range(1, 66)) <= set(axes.VECTOR_LENGTHS)


def test_attribute_defaults_come_from_the_schema():
    assert axes.attribute_defaults("Cast", 25) == {"round_mode": "up", "saturate": 1}
    assert axes.attribute_defaults("Cast", 13) == {}
    assert axes.attribute_defaults("QuantizeLinear", 21)["saturate"] == 1
    assert axes.attribute_defaults("NoSuchOp", 21) == {}
    node = helper.make_node("Cast", ["x"], ["y"], to=1, saturate=0)
    out = axes.with_defaults(node, axes.attribute_defaults("Cast", 25))
    got = {a.name: helper.get_attribute_value(a) for a in out.attribute}
    assert got == {"to": 1, "saturate": 0, "round_mode": b"up"}  # the node's own value is kept
    assert len(node.attribute) == 2


def test_boundary_opsets():
    assert axes.boundary_opsets([19, 24], 13, 25) == [18, 19, 20, 23, 24, 25]
    assert axes.boundary_opsets([24], 13, 24) == [23, 24]
    assert axes.boundary_opsets([10], 10, 25) == [10, 11]
