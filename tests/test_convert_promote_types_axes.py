"""The axes of generation in the ConvertPromoteTypes family (issue 21): NaN payloads through the conversion of float
inputs; explicit defaults (the matrix writes every attribute, defaults included; the spec's examples leave them
out); no opset boundaries (one version, ConvertPromoteTypes-14); every fault says where it was seen."""

from __future__ import annotations

import numpy as np

from generator import axes, dtypes, faults, sampling
from generator.families import convert_promote_types as fam
from generator.families.convert_promote_types.values import edge_values, scalar_values
from generator.families.convert_promote_types.variant import variant_name
from generator.reference import convert_promote_types as ref

F32, BF16 = dtypes.get("float"), dtypes.get("bfloat16")


def test_float_edge_values_hold_every_nan_encoding_from_bits():
    for name in ("float", "double", "float16", "bfloat16", "float8e5m2"):
        t = dtypes.get(name)
        have = set(t.to_bits(edge_values(t)).tolist())
        assert set(t.to_bits(axes.nan_values(t)[1]).tolist()) <= have, name
    assert 0x7F800001 in set(F32.to_bits(edge_values(F32)).tolist())


def test_a_float_scalar_takes_a_signalling_nan_with_a_low_payload():
    x = scalar_values(F32, 3)
    assert F32.to_bits(x).tolist()[2] == 0x7F800001
    assert dtypes.get("float16").to_bits(scalar_values(dtypes.get("float16"), 3)).tolist()[2] == 0x7C01


def test_a_float32_scalar_nan_converted_to_bfloat16_is_expected_nan():
    """S(f32), D(bf16) with pytorch_scalar_promotion: the scalar float32 is converted to bfloat16, the one
    float32 -> bfloat16 conversion of the family. Its signalling NaN (payload in the low bits) must stay NaN: an
    add-and-shift rounding without a NaN test gives Inf."""
    v = fam.Variant(F32, BF16, (0, 2), True, True, name=variant_name(F32, BF16, "scalar_dim", True, True))
    assert v.decision.common == BF16
    values = fam.Values(fam.PROFILES["default"], 0)
    cases = list(fam.variant_cases(v, values, sampling.case_seed(0, v.name), ["matrix"]))
    node = next(c for c in cases if c.kind == "node")
    sets = [i for i, ins in enumerate(node.inputs) if F32.isnan(ins[0]).all()]
    assert sets and F32.to_bits(node.inputs[sets[0]][0].reshape(1)).tolist() == [0x7F800001]
    assert BF16.isnan(node.outputs[sets[0]][0]).all()
    bits = np.uint64(0x7F800001)
    assert (int(bits) + 0x7FFF) >> 16 == 0x7F80  # add-and-shift: +Inf


def test_the_matrix_writes_every_attribute_and_the_examples_leave_defaults_out():
    v = next(fam.pair_variants(F32, BF16))
    assert v.attrs == {"promote_unsafe": 0, "pytorch_scalar_promotion": 0,
                       "u64_integer_promotion_target": ref.DEFAULT_TARGET}
    assert any(ex.attrs == {} for ex, _ in fam.example_variants())


def test_every_fault_says_where_it_was_seen():
    for f in faults.catalogue("convert_promote_types"):
        assert f.seen_in.strip(), f.name


def test_float8_decoded_as_normals_is_tvms_float8_input():
    """TVM 0.27 (baseline of issue 21): a float8 input converted to a wider type reads every encoding as a normal
    number: f8e4m3fn 0 -> 2**-7, NaN 0x7f -> 480; f8e5m2 0 -> 2**-15, Inf -> 65536, NaN 0x7e -> 98304."""
    from generator.reference.convert_promote_types_faults.conversions import float8_as_normals

    e4, e5 = dtypes.get("float8e4m3fn"), dtypes.get("float8e5m2")
    assert float8_as_normals(e4.from_bits(np.array([0x00, 0x7F, 0x01])), e4).tolist() == [2.0**-7, 480.0,
                                                                                              2.0**-7 * 1.125]
    assert float8_as_normals(e5.from_bits(np.array([0x00, 0x7C, 0x7E, 0x3C])), e5).tolist() == [
        2.0**-15, 65536.0, 98304.0, 1.0]
    f = faults.by_name("convert_promote_types")["convert_promote_types.float8_decoded_as_normals"]
    p = {"input_0": "float8e5m2", "input_1": "float", "shapes": "dim_dim", "promote_unsafe": 0,
         "pytorch_scalar_promotion": 0, "u64_integer_promotion_target": "f32"}
    assert f.equivalent(p) is None
    assert f.equivalent(dict(p, input_0="float16")) is not None
