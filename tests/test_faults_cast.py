"""Cast fault models (generator/reference/cast_faults/) and their witnesses (generator/witness/cast.py)."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, witness
from generator.faults import same_elements
from generator.families import cast as family
from generator.reference import cast_faults
from generator.witness import cast as search

GROUPS = search.groups(family.NEWEST_CAST)
CATALOGUE = witness.load("cast")["groups"]
FAULTS = {f.name: f for f in cast_faults.FAULTS}


def _run(fault, x, v, opset):
    return fault.fn([x], v.attrs, opset, [v.src])[0]


def _ref(x, v, opset):
    """(y, where the spec leaves y undefined): the reference's Outcome."""
    outcome = v.outcome(x, opset)
    return outcome.outputs[0], outcome.mask()


def test_names_unique_and_described():
    names = [f.name for f in cast_faults.FAULTS]
    assert len(names) == len(set(names))
    assert all(f.name.startswith("cast.") and f.what for f in cast_faults.FAULTS)


def test_catalogue_covers_every_group_and_applicable_fault():
    assert {cast_faults.group_key({"params": v.params, "opset": o}) for v, o in GROUPS} == set(CATALOGUE)
    for v, opset in GROUPS:
        entry = CATALOGUE[cast_faults.group_key({"params": v.params, "opset": opset})]
        params = search.params_of(v, opset)
        applicable = {f.name for f in cast_faults.FAULTS if f.applies(params)}
        assert set(entry["faults"]) == applicable, v.base_name
        assert not [f for f, e in entry["faults"].items() if "unresolved" in e], v.base_name


def test_every_catalogued_witness_tells_its_fault_apart():
    for v, opset in GROUPS:
        entry = CATALOGUE[cast_faults.group_key({"params": v.params, "opset": opset})]
        for name, found in entry["faults"].items():
            if "witnesses" not in found:
                continue
            x = search.decode(found["witnesses"], v.src)
            y, undefined = _ref(x, v, opset)
            z = _run(FAULTS[name], x, v, opset)
            assert not undefined.any(), (v.base_name, name)
            assert not same_elements(y, z, v.to, nan_sign=name in search.NAN_SIGN_FAULTS).all(), (v.base_name, name)


@pytest.mark.parametrize("src", ["bool", "int2", "uint4", "int8", "uint8", "float8e4m3fn", "float8e5m2fnuz",
                                 "float8e8m0", "float4e2m1", "float16", "bfloat16", "int16"])
def test_analytic_equivalences_hold_on_every_input(src):
    """Where a fault claims it cannot differ, it does not, on every bit pattern of a small source (under the
    strict comparison, which sees the sign of NaN only in the rows that state it: cast.nan_sign_lost's claim)."""
    s = dtypes.get(src)
    x = s.all_values() if s.kind != "bool" else np.array([False, True])
    for v, opset in GROUPS:
        if v.src.name != src:
            continue
        params = search.params_of(v, opset)
        y, undefined = _ref(x, v, opset)
        for fault in cast_faults.FAULTS:
            if fault.applies(params) and fault.equivalent(params) is not None:
                z = _run(fault, x, v, opset)
                same = same_elements(y, z, v.to)  # the strict comparison: the sign of NaN only where stated
                assert (same | undefined).all(), (v.base_name, fault.name, fault.equivalent(params))


def test_wide_source_equivalences_hold_on_constructed_inputs():
    """The same for 32 / 64-bit and string sources, on the search's constructed pool of each group."""
    checked = 0
    for v, opset in GROUPS[::7]:
        if v.src.kind != "string" and v.src.bits <= 16:
            continue
        params = search.params_of(v, opset)
        x, _ = search.pool(v.src, v.to)
        y, undefined = _ref(x, v, opset)
        for fault in cast_faults.FAULTS:
            if fault.applies(params) and fault.equivalent(params) is not None and fault.name != "cast.nan_sign_lost":
                same = same_elements(y, _run(fault, x, v, opset), v.to)
                assert (same | undefined).all(), (v.base_name, fault.name)
                checked += 1
    assert checked > 50


def test_double_rounding_is_what_the_issue_describes():
    """integer -> bfloat16 through float32: just above a bfloat16 midpoint, float32 rounds onto the tie."""
    m = (1 << 28) + (1 << 20)  # midpoint of bfloat16 between 2**28 and 2**28 + 2**21
    x = np.array([m + 4], dtype=np.int32)
    v = family.Variant(dtypes.get("int32"), dtypes.get("bfloat16"), None, None, 13)
    y, _ = _ref(x, v, 13)
    z = _run(FAULTS["cast.via_float"], x, v, 13)
    assert float(y[0]) == (1 << 28) + (1 << 21)  # the exact value is above the midpoint
    assert float(z[0]) == 1 << 28  # float32 made it a tie, and the tie went to even


def test_tie_rules_on_a_float8_tie():
    v = family.Variant(dtypes.get("float"), dtypes.get("float8e4m3fn"), True, None, 19)
    x = np.array([1.0625, -1.0625, 1.1875, 1.03], dtype=np.float32)  # ties of e4m3 around 1, and a non-tie
    got = {name: _run(FAULTS[name], x, v, 19).astype(np.float32).tolist()
           for name in ("cast.round_half_away", "cast.round_half_up", "cast.round_toward_zero")}
    assert _ref(x, v, 19)[0].astype(np.float32).tolist() == [1.0, -1.0, 1.25, 1.0]
    assert got["cast.round_half_away"] == [1.125, -1.125, 1.25, 1.0]
    assert got["cast.round_half_up"] == [1.125, -1.0, 1.25, 1.0]
    assert got["cast.round_toward_zero"] == [1.0, -1.0, 1.125, 1.0]


def test_tie_rules_on_sub_byte_integer_ties():
    """float -> int4 rounds to nearest even (int4.md): the tie rules, and truncation, are faults there too."""
    v = family.Variant(dtypes.get("float"), dtypes.get("int4"), None, None, 21)
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.7, 7.5], dtype=np.float32)  # 7.5: out of range, left alone
    y, undefined = _ref(x, v, 21)
    assert y[:6].astype(np.int64).tolist() == [0, 2, 2, 0, -2, 1] and undefined[6]
    got = {name: _run(FAULTS[name], x, v, 21)[:6].astype(np.int64).tolist()
           for name in ("cast.round_half_away", "cast.round_half_up", "cast.round_toward_zero")}
    assert got["cast.round_half_away"] == [1, 2, 3, -1, -2, 1]
    assert got["cast.round_half_up"] == [1, 2, 3, 0, -1, 1]
    assert got["cast.round_toward_zero"] == [0, 1, 2, 0, -1, 0]
    for name in got:
        assert FAULTS[name].applies(search.params_of(v, 21)), name
        assert not FAULTS[name].applies(search.params_of(family.Variant(dtypes.get("int8"), dtypes.get("int4"),
                                                                         None, None, 21), 21)), name


def test_int_round_nearest_even_where_the_reference_truncates():
    v = family.Variant(dtypes.get("float"), dtypes.get("int8"), None, None, 13)
    x = np.array([1.5, 2.5, 0.7, -0.7, -1.5, 3.0], dtype=np.float32)
    assert _ref(x, v, 13)[0].astype(np.int64).tolist() == [1, 2, 0, 0, -1, 3]
    assert _run(FAULTS["cast.int_round_nearest_even"], x, v, 13).astype(np.int64).tolist() == [2, 2, 1, -1, -2, 3]
    fault = FAULTS["cast.int_round_nearest_even"]
    assert fault.applies({"from": "float16", "to": "uint64", "opset": 13})
    assert not fault.applies({"from": "float", "to": "int4", "opset": 21})  # int4.md: nearest even is right there
    assert not fault.applies({"from": "int32", "to": "int8", "opset": 13})


def test_negative_zero_lost_is_witnessed_for_float6():
    """-0 -> float6 gives -0 (float6.md, newest revision): losing the sign is a fault with a witness."""
    for to in ("float6e2m3", "float6e3m2"):
        entry = CATALOGUE[f"float->{to} opset=28"]["faults"]["cast.negative_zero_lost"]
        assert "witnesses" in entry, entry
        v = family.Variant(dtypes.get("float"), dtypes.get(to), None, None, 28)
        x = np.array([-0.0], dtype=np.float32)
        assert dtypes.get(to).to_bits(_ref(x, v, 28)[0]).tolist() == [0x20]
        assert dtypes.get(to).to_bits(_run(FAULTS["cast.negative_zero_lost"], x, v, 28)).tolist() == [0]


def test_subbyte_add_half_float32_is_what_openvino_does():
    """OpenVINO 2026.4.1, float -> int4 / uint4: trunc(x +- 0.5) in float32, after rounding a double to float32."""
    fault = FAULTS["cast.subbyte_add_half_float32"]
    v = family.Variant(dtypes.get("float"), dtypes.get("uint4"), None, None, 21)
    x = np.array([0.5, 2.5, 0.49999997, 1.4999999, 1.25], dtype=np.float32)
    assert _ref(x, v, 21)[0].astype(np.int64).tolist() == [0, 2, 0, 1, 1]
    assert _run(fault, x, v, 21).astype(np.int64).tolist() == [1, 3, 1, 1, 1]  # 1.4999999f + 0.5f is exact
    assert _run(FAULTS["cast.round_half_away"], x, v, 21).astype(np.int64).tolist() == [1, 3, 0, 1, 1]
    v = family.Variant(dtypes.get("double"), dtypes.get("int4"), None, None, 21)
    x = np.array([6.499999999999999, -7.499999999999999, -6.2], dtype=np.float64)
    assert _ref(x, v, 21)[0].astype(np.int64).tolist() == [6, -7, -6]
    assert _run(fault, x, v, 21).astype(np.int64).tolist() == [7, -8, -6]
    assert not fault.applies({"from": "float", "to": "int8", "opset": 13})



def test_ftz_after_rounding_is_what_iree_does():
    """IREE 3.13 llvm-cpu, float64 -> float32: results below FLT_MIN -> +-0, tininess decided after rounding to 24
    bits with an unbounded exponent (0x1.fffffep-127 is exact there and tiny: 0; 0x1.fffffffffffffp-127 rounds to
    2**-126: FLT_MIN)."""
    fault = FAULTS["cast.ftz_after_rounding"]
    v = family.Variant(dtypes.get("double"), dtypes.get("float"), None, None, 13)
    x = np.array([1.1754942807573643e-38, 1.1754943508222874e-38, -1.401298464324817e-45, 1.5], dtype=np.float64)
    flt_min = 1.1754943508222875e-38
    assert _ref(x, v, 13)[0].tolist() == [flt_min, flt_min, -1.401298464324817e-45, 1.5]
    z = _run(fault, x, v, 13)
    assert z.tolist() == [0.0, flt_min, -0.0, 1.5] and np.signbit(z[2])
    assert not fault.applies({"from": "int32", "to": "float", "opset": 13})
    assert fault.equivalent({"from": "float16", "to": "float", "opset": 13})  # no float16 is below FLT_MIN


def test_ftz_after_rounding_via_float_is_what_iree_does():
    """IREE 3.13 llvm-cpu, float64 -> float16: through float32 (65519.99999999999 -> Inf), float16 subnormal results
    -> 0 (2.980232238769532e-08), 6.103515624999999e-05 -> 2**-14 (rounds onto the smallest normal)."""
    fault = FAULTS["cast.ftz_after_rounding_via_float"]
    v = family.Variant(dtypes.get("double"), dtypes.get("float16"), None, None, 13)
    x = np.array([65519.99999999999, 2.980232238769532e-08, 6.103515624999999e-05, -5.960464477539063e-08])
    t = dtypes.get("float16")
    assert t.to_bits(_ref(x, v, 13)[0]).tolist() == [0x7BFF, 0x0001, 0x0400, 0x8001]
    assert t.to_bits(_run(fault, x, v, 13)).tolist() == [0x7C00, 0x0000, 0x0400, 0x8000]
    v = family.Variant(dtypes.get("double"), dtypes.get("bfloat16"), None, None, 13)
    assert dtypes.get("bfloat16").to_bits(_run(fault, np.array([9.183549615799121e-41]), v, 13)).tolist() == [0]
    assert not fault.applies({"from": "float", "to": "float16", "opset": 13})


def test_iree_float8_is_what_iree_does():
    """IREE 3.13 llvm-cpu, CastLike float32 -> float8e4m3fn: saturate ignored (FLT_MAX -> NaN), -896 -> +NaN 0x7f
    but -472 -> 0xff, 0.0146484375 and 0.015624999 -> 0 (the carry into 2**-6 lost), 0.013671875 -> 0x07."""
    fault = FAULTS["cast.iree_float8"]
    t = dtypes.get("float8e4m3fn")
    x = np.array([3.4028234663852886e38, -896.0, -472.0, 0.0146484375, 0.015624999, -0.0146484375, 0.013671875,
                  0.015625, np.nan], dtype=np.float32)
    v = family.Variant(dtypes.get("float"), t, True, None, 19)
    assert t.to_bits(_ref(x, v, 19)[0]).tolist() == [0x7E, 0xFE, 0xFE, 0x08, 0x08, 0x88, 0x07, 0x08, 0x7F]
    assert t.to_bits(_run(fault, x, v, 19)).tolist() == [0x7F, 0x7F, 0xFF, 0x00, 0x00, 0x80, 0x07, 0x08, 0x7F]
    v = family.Variant(dtypes.get("float"), t, False, None, 19)
    assert t.to_bits(_ref(x, v, 19)[0]).tolist()[:3] == [0x7F, 0xFF, 0xFF]
    assert t.to_bits(_run(fault, x, v, 19)).tolist()[:4] == [0x7F, 0x7F, 0xFF, 0x00]
    assert not fault.applies({"from": "int32", "to": "float8e4m3fn", "saturate": 0, "opset": 19})


def test_uint32_via_int32_is_what_iree_does():
    """IREE 3.13 llvm-cpu, CastLike float64 -> uint32, the whole of test_castlike_float64_to_uint32_edge[0] (the
    numbers are IREE's): every truncation of 2**31 and above gives 0x80000000, the others the reference's;
    OpenVINO's model of a float64 through int32 clamps to 0x7fffffff instead."""
    fault = FAULTS["cast.uint32_via_int32"]
    v = family.Variant(dtypes.get("double"), dtypes.get("uint32"), None, None, 13)
    x = np.array([0.0, 1.0, 2.0, 3.0, 7.0, -0.0, 0.5, 1.5, 2.5, 0.9, 1.1, 100.5, 2.2250738585072014e-308, 5e-324,
                  4294967295.0, 4294967294.0, 2147483649.0, 4294967294.5, 2147483649.5, 4294967293.5, 2147483648.5,
                  4294967294.9999995, 0.9999999999999999, 1.0000000000000002, 4294967293.9999995, 4294967294.0000005,
                  2147483648.9999995, 2147483649.0000005, 0.49999999999999994, 0.5000000000000001,
                  1.4999999999999998, 1.5000000000000002, 4294967294.4999995, 4294967294.5000005, 2147483649.4999995,
                  2147483649.5000005, 4294967293.4999995, 4294967293.5000005, 2147483648.4999995,
                  2147483648.5000005])
    big = 2147483648
    iree = [0, 1, 2, 3, 7, 0, 0, 1, 2, 0, 1, 100, 0, 0] + [big] * 8 + [0, 1] + [big] * 4 + [0, 0, 1, 1] + [big] * 8
    want, undefined = _ref(x, v, 13)
    assert not undefined.any() and (want != iree).sum() == 16  # IREE's 16 failing elements
    assert _run(fault, x, v, 13).tolist() == iree
    assert _run(FAULTS["cast.ov_int64_as_int32"], x, v, 13).tolist()[14] == 2**31 - 1
    below = x[x < 2**31]  # within int32: the reference's result
    assert _run(fault, below, v, 13).tolist() == _ref(below, v, 13)[0].tolist()
    assert fault.equivalent({"from": "float16", "to": "uint32", "opset": 13})  # 65504 < 2**31
    assert not fault.applies({"from": "double", "to": "uint64", "opset": 13})
    assert not fault.applies({"from": "int64", "to": "uint32", "opset": 13})
