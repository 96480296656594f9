"""runners.compare: NaN / zero rules, ulp and abs distances, parsed strings, structure checks, messages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import dtypes
from generator.serialize import compare_problem
from runners.compare import MODES, TIERS, compare_outputs, resolve_spec, tier_independent

F32 = dtypes.get("float")
EXACT = {"mode": "exact"}


def f32(*bits: int) -> np.ndarray:
    return F32.from_bits(np.array(bits, dtype=np.uint32))


def judge(expected, actual, t, spec=EXACT, tier="strict", inputs=None, **kw):
    t = dtypes.get(t)
    return compare_outputs([expected], [actual], ["y"], [t], spec, tier, inputs=inputs, **kw)


# ---- exact -----------------------------------------------------------------------------
def test_nan_payload_is_ignored():
    assert judge(f32(0x7FC00000), f32(0x7FC00001), F32).ok
    assert judge(f32(0x7FC00000), f32(0x7F800001), F32).ok  # signalling vs quiet: both NaN


def test_nan_sign_only_with_nan_sign_in_strict_tier():
    pos, neg = f32(0x7FC00000), f32(0xFFC00000)
    assert judge(pos, neg, F32).ok
    spec = {"mode": "exact", "nan_sign": True}
    strict = judge(pos, neg, F32, spec)
    assert not strict.ok and strict.n_mismatch == 1
    assert "0x7fc00000" in strict.message and "0xffc00000" in strict.message
    assert judge(pos, neg, F32, spec, tier="tolerant").ok


def test_nan_sign_float8():
    t = dtypes.get("float8e4m3fn")
    pos, neg = t.from_bits(np.array([0x7F], np.uint8)), t.from_bits(np.array([0xFF], np.uint8))
    assert judge(pos, neg, t).ok
    assert not judge(pos, neg, t, {"mode": "exact", "nan_sign": True}).ok


def test_negative_zero_differs_from_zero():
    out = judge(np.array([0.0], np.float32), np.array([-0.0], np.float32), F32)
    assert not out.ok
    assert "0x00000000" in out.message and "0x80000000" in out.message


def test_nan_does_not_match_a_number():
    assert not judge(f32(0x7FC00000), f32(0x3F800000), F32).ok
    assert not judge(f32(0x3F800000), f32(0x7FC00000), F32).ok


def test_exact_sub_byte_types():
    t = dtypes.get("int4")
    e = np.array([-8, 7, 0], dtype=t.np_dtype)
    assert judge(e, e.copy(), t).ok
    out = judge(e, np.array([-8, 7, 1], dtype=t.np_dtype), t)
    assert not out.ok and "0x0" in out.message and "0x1" in out.message
    f4 = dtypes.get("float4e2m1")
    a = f4.from_bits(np.array([0x0, 0x8], np.uint8))  # +0, -0
    assert not judge(a[:1], a[1:], f4).ok


def test_exact_strings_and_bool():
    assert judge(np.array(["a", "b"], dtype=object), np.array(["a", "b"], dtype=object), "string").ok
    assert not judge(np.array(["a"], dtype=object), np.array(["A"], dtype=object), "string").ok
    assert judge(np.array([True, False]), np.array([True, False]), "bool").ok
    assert not judge(np.array([True]), np.array([False]), "bool").ok


# ---- ulp ---------------------------------------------------------------------------------
def test_ulp_distance_across_zero():
    tiny, ntiny = f32(0x00000001), f32(0x80000001)  # +-smallest subnormal: 2 ulps apart via 0
    assert not judge(tiny, ntiny, F32, {"mode": "ulp", "ulp": 1}).ok
    assert judge(tiny, ntiny, F32, {"mode": "ulp", "ulp": 2}).ok
    assert judge(f32(0x00000000), f32(0x80000000), F32, {"mode": "ulp", "ulp": 0}).ok  # +0 and -0


def test_ulp_neighbours_and_specials():
    one, next_one = f32(0x3F800000), f32(0x3F800001)
    assert not judge(one, next_one, F32, EXACT).ok
    assert judge(one, next_one, F32, {"mode": "ulp", "ulp": 1}).ok
    fmax, inf = f32(0x7F7FFFFF), f32(0x7F800000)  # adjacent encodings, but Inf matches only Inf
    assert not judge(fmax, inf, F32, {"mode": "ulp", "ulp": 5}).ok
    assert judge(inf, inf.copy(), F32, {"mode": "ulp", "ulp": 0}).ok
    assert judge(f32(0x7FC00000), f32(0xFFC00001), F32, {"mode": "ulp", "ulp": 0}).ok


def test_ulp_float64_extremes_do_not_overflow():
    t = dtypes.get("double")
    big = np.array([np.finfo(np.float64).max])
    assert not judge(big, -big, t, {"mode": "ulp", "ulp": 2**62}).ok
    assert judge(big, big.copy(), t, {"mode": "ulp", "ulp": 0}).ok


def test_ulp_float8():
    t = dtypes.get("float8e5m2")
    a = t.from_bits(np.array([0x3C, 0x3D], np.uint8))
    assert judge(a[:1], a[1:], t, {"mode": "ulp", "ulp": 1}).ok
    assert not judge(a[:1], a[1:], t, EXACT).ok


# ---- abs ---------------------------------------------------------------------------------
def test_abs_integers_without_wraparound():
    u8 = dtypes.get("uint8")
    assert judge(np.array([5], np.uint8), np.array([6], np.uint8), u8, {"mode": "abs", "abs": 1}).ok
    assert not judge(np.array([0], np.uint8), np.array([255], np.uint8), u8, {"mode": "abs", "abs": 1}).ok
    assert not judge(np.array([-128], np.int8), np.array([127], np.int8), "int8", {"mode": "abs", "abs": 1}).ok
    big = np.array([2**64 - 1], np.uint64)
    assert not judge(np.array([0], np.uint64), big, "uint64", {"mode": "abs", "abs": 1}).ok


def test_tiers_strict_exact_tolerant_abs():
    spec = {"mode": "exact", "tolerant": {"mode": "abs", "abs": 1}}
    e, a = np.array([10, 20], np.uint8), np.array([11, 20], np.uint8)
    assert not judge(e, a, "uint8", spec, tier="strict").ok
    assert judge(e, a, "uint8", spec, tier="tolerant").ok


SPECS = [None, {"mode": "exact"}, {"mode": "exact", "nan_sign": True},
         {"mode": "exact", "tolerant": {"mode": "abs", "abs": 1}}, {"mode": "ulp", "ulp": 1},
         {"mode": "abs", "abs": 1}, {"mode": "exact", "outputs": {"y": {"tolerant": {"mode": "ulp", "ulp": 1}}}},
         {"mode": "exact", "outputs": {"z": {"tolerant": {"mode": "ulp", "ulp": 1}}}}]


@pytest.mark.parametrize("spec", SPECS)
def test_tier_independent_means_one_verdict_in_every_tier(spec):
    """The runner compares once when tier_independent says so: then every tier must agree, on data
    that each rule (off by one, one ulp, NaN sign, NaN payload, -0) tells apart."""
    f = dtypes.get("float32")
    e = np.array([1.0, 2.0, np.nan, 0.0, 5.0], np.float32)
    actuals = [e.copy(), e + np.float32(1), np.nextafter(e, np.float32(9)), -e,
               np.array([1.0, 2.0, -np.nan, 0.0, 5.0], np.float32), np.array([1.0, 2.0, np.nan, -0.0, 5.0], np.float32)]
    independent = tier_independent(spec, ["y"])
    assert independent == (spec is None or spec in SPECS[1:2] + SPECS[4:6] + SPECS[7:])
    for a in actuals:
        oks = {t: compare_outputs([e], [a], ["y"], [f], spec, t).ok for t in TIERS}
        if independent:
            assert len(set(oks.values())) == 1, (spec, a, oks)
    if not independent:  # each dependent spec has data the tiers judge apart
        assert any(len({compare_outputs([e], [a], ["y"], [f], spec, t).ok for t in TIERS}) > 1 for a in actuals)


def test_per_output_spec_and_resolution():
    spec = {"mode": "exact", "reason": "r", "tolerant": {"mode": "abs", "abs": 1},
            "outputs": {"scale": {"mode": "ulp", "ulp": 0}}}
    assert resolve_spec(spec, "y", "strict") == {"mode": "exact", "reason": "r"}
    assert resolve_spec(spec, "y", "tolerant")["mode"] == "abs"
    assert resolve_spec(spec, "scale", "strict")["mode"] == "ulp"
    assert resolve_spec(spec, "scale", "tolerant")["mode"] == "abs"  # inherits the top-level override
    with pytest.raises(ValueError):
        resolve_spec({"mode": "fuzzy"}, "y", "strict")
    with pytest.raises(ValueError):
        resolve_spec(EXACT, "y", "lenient")


# ---- parsed ------------------------------------------------------------------------------
PARSED = {"mode": "parsed", "source_type": "float", "tolerant": {"mode": "parsed", "rel": 1e-5}}


def texts(*s):
    return np.array(s, dtype=object)


def test_parsed_same_float32_value():
    assert judge(texts("0.1"), texts("0.10000000149011612"), "string", PARSED).ok
    assert judge(texts("0.1"), texts("1e-1"), "string", PARSED).ok
    assert judge(texts("100"), texts("1E2"), "string", PARSED).ok


def test_parsed_different_value_fails_strict_passes_tolerant():
    out = judge(texts("0.1"), texts("0.1000001"), "string", PARSED)
    assert not out.ok
    assert out.mismatches[0].actual == "0.1000001"  # the text is recorded
    assert out.mismatches[0].expected_bits == "0x3dcccccd"
    assert "'0.1000001'" in out.message
    assert judge(texts("0.1"), texts("0.1000001"), "string", PARSED, tier="tolerant").ok
    assert not judge(texts("0.1"), texts("0.11"), "string", PARSED, tier="tolerant").ok


def test_parsed_unparseable_and_negative_zero():
    out = judge(texts("1.5"), texts("one and a half"), "string", PARSED)
    assert not out.ok and "not a number" in out.message
    assert not judge(texts("1.5"), texts("1.5f"), "string", PARSED, tier="tolerant").ok
    assert not judge(texts("0"), texts("-0"), "string", PARSED).ok
    assert judge(texts("-0"), texts("-0.0"), "string", PARSED).ok


def test_parsed_float16_and_e8m0():
    f16 = {"mode": "parsed", "source_type": "float16"}
    assert judge(texts("0.1"), texts("0.099975586"), "string", f16).ok  # both read back as 0x2e66
    assert not judge(texts("0.1"), texts("0.1001"), "string", f16).ok
    e8 = {"mode": "parsed", "source_type": "float8e8m0"}
    assert judge(texts(format(2.0**-127, ".17g")), texts("5.8774718e-39"), "string", e8).ok
    assert not judge(texts("4"), texts("8"), "string", e8).ok


def test_parsed_integer_source_exact_value():
    spec = {"mode": "parsed", "source_type": "int64", "tolerant": {"mode": "parsed", "rel": 1e-5}}
    big = "9007199254740993"  # 2**53 + 1: a float64 would lose it
    assert judge(texts(big), texts(big), "string", spec).ok
    assert judge(texts("7"), texts("7.0"), "string", spec).ok
    assert not judge(texts(big), texts("9007199254740992"), "string", spec).ok
    assert not judge(texts(big), texts("9007199254740992"), "string", spec, tier="tolerant").ok
    assert not judge(texts("7"), texts("seven"), "string", spec).ok


# ---- default (plain ONNX node tests) -----------------------------------------------------
def test_default_mode_like_onnx_runner():
    e = np.array([1.0, np.nan, np.inf], np.float32)
    assert judge(e, np.array([1.0005, np.nan, np.inf], np.float32), F32, None).ok
    assert not judge(e, np.array([1.01, np.nan, np.inf], np.float32), F32, None).ok
    assert not judge(e, np.array([1.0, np.nan, -np.inf], np.float32), F32, None).ok
    assert not judge(np.array([1], np.int32), np.array([2], np.int32), "int32", None).ok


# ---- structure ---------------------------------------------------------------------------
def test_float8_returned_as_uint8_is_a_type_mismatch():
    t = dtypes.get("float8e4m3fn")
    e = t.from_bits(np.array([0x38, 0x40], np.uint8))
    out = judge(e, t.to_bits(e), t)
    assert not out.ok and out.n_mismatch == 2
    assert "uint8" in out.message and "float8e4m3fn" in out.message and "bit patterns" in out.message


def test_shape_and_count_mismatch():
    e = np.zeros((2, 3), np.float32)
    out = judge(e, np.zeros((3, 2), np.float32), F32)
    assert not out.ok and "(3, 2)" in out.message and "(2, 3)" in out.message
    out = compare_outputs([e, e], [e], ["a", "b"], [F32, F32], EXACT, "strict")
    assert not out.ok and "1 outputs, expected 2" in out.message
    assert not judge(np.zeros(2, np.float32), [0.0, 0.0], F32).ok  # a list is not an array


# ---- the message -------------------------------------------------------------------------
def test_message_names_output_index_input_bits_and_count():
    t = dtypes.get("float8e4m3fn")
    x = np.array([[1.0, 465.0, 2.0], [3.0, 500.0, 4.0]], np.float32)
    e = t.from_bits(np.array([[0x38, 0x7F, 0x40], [0x44, 0x7F, 0x48]], np.uint8))
    a = e.copy()
    a[0, 1] = t.from_bits(np.array(0x7E, np.uint8))
    a[1, 1] = t.from_bits(np.array(0x7E, np.uint8))
    out = compare_outputs([e], [a], ["output"], [t], {"mode": "exact", "reason": "RNE"}, "strict", inputs=[x])
    assert not out.ok and (out.n_mismatch, out.n_total) == (2, 6)
    msg = out.message
    assert "'output'" in msg and "float8e4m3fn" in msg and "2 of 6 elements differ" in msg
    assert "[0, 1]" in msg and "[1, 1]" in msg
    assert "465.0 (0x43e88000)" in msg  # the input element and its bits
    assert "nan (0x7f)" in msg and "448 (0x7e)" in msg
    m = out.mismatches[0]
    assert (m.output, m.index, m.input, m.expected_bits, m.actual_bits) == ("output", (0, 1), 465.0, "0x7f", "0x7e")


def test_message_is_capped_at_max_shown():
    e = np.zeros(50, np.int32)
    out = judge(e, np.ones(50, np.int32), "int32", max_shown=3)
    assert out.n_mismatch == 50 and len(out.mismatches) == 3
    assert "50 of 50 elements differ" in out.message and "and 47 more" in out.message


def test_ok_outcome_has_empty_message():
    out = judge(np.arange(4, dtype=np.int16), np.arange(4, dtype=np.int16), "int16")
    assert out.ok and out.message == "" and out.n_mismatch == 0 and out.n_total == 4


# ---- compare specs read_case accepts never make the comparison raise (issue 11, item 2) ----------------
_BAD = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**65), st.floats(), st.lists(st.integers(), max_size=1),
                 st.sampled_from(["banana", "", "float"]))
_AMOUNT = st.one_of(st.floats(0, 1e300), st.integers(0, 2**70))
_GOOD = {"mode": st.sampled_from(MODES), "ulp": st.integers(0, 2**64 - 1), "abs": _AMOUNT, "rtol": _AMOUNT,
         "atol": _AMOUNT, "rel": _AMOUNT, "nan_sign": st.booleans(), "reason": st.text(max_size=2),
         "source_type": st.sampled_from(["float", "float16", "float8e8m0", "int8", "uint64", "bool", "string"])}


def _mostly(good):
    """Mostly a good value, sometimes a bad one: specs that pass the check are the ones that matter."""
    return st.integers(0, 9).flatmap(lambda i: _BAD if i == 0 else good)


def _layer(mode: bool):
    """One level of a spec: its parameters, "mode" always present in the top level."""
    keys = sorted(set(_GOOD) - {"mode"})
    return st.fixed_dictionaries({"mode": _mostly(_GOOD["mode"])} if mode else {},
                                 optional={k: _mostly(_GOOD[k]) for k in keys + ([] if mode else ["mode"])})


_TOLERANT = st.none() | _mostly(_layer(False))
_SPECS = _mostly(st.builds(
    lambda top, tol, per: {**top, **({"tolerant": tol} if tol is not None else {}),
                           **({"outputs": {"y": per}} if per is not None else {})},
    _layer(True), _TOLERANT,
    st.none() | _mostly(st.builds(lambda p, t: {**p, **({"tolerant": t} if t is not None else {})},
                                  _layer(False), _TOLERANT))))
# (type, expected, actual): values that differ, with NaN, infinities and signed zeros where the type has them
_OUTPUTS = [
    ("float", np.array([1.0, np.nan, -0.0, np.inf], np.float32), np.array([1.5, np.nan, 0.0, np.inf], np.float32)),
    ("float16", np.array([1.0, -np.inf], np.float16), np.array([1.001, np.inf], np.float16)),
    ("float8e4m3fn", dtypes.get("float8e4m3fn").from_bits(np.array([0x38, 0x7F], np.uint8)),
     dtypes.get("float8e4m3fn").from_bits(np.array([0x39, 0xFF], np.uint8))),
    ("int8", np.array([-128, 5], np.int8), np.array([127, 6], np.int8)),
    ("uint64", np.array([0, 2**64 - 1], np.uint64), np.array([2**64 - 1, 0], np.uint64)),
    ("bool", np.array([True, False]), np.array([False, False])),
    ("string", np.array(["1.5", "NaN"], dtype=object), np.array(["1.50", "x"], dtype=object)),
]


@settings(derandomize=True, database=None, max_examples=400, deadline=None)
@given(_SPECS, st.sampled_from(_OUTPUTS))
def test_a_spec_that_read_case_accepts_never_makes_compare_raise(spec, output):
    name, expected, actual = output
    t = dtypes.get(name)
    if compare_problem(spec, [("y", t)]) is not None:
        return
    tier_independent(spec, ["y"])
    for tier in TIERS:
        for got in (actual, expected.copy()):
            judge(expected, got, t, spec, tier=tier)


def test_specs_the_generator_writes_are_accepted():
    f32 = dtypes.get("float")
    assert compare_problem({"mode": "exact", "tolerant": {"mode": "abs", "abs": 1}}, [("y", f32)]) is None
    assert compare_problem({"mode": "allclose", "rtol": 1e-4, "atol": 1e-4, "outputs": {"y": {"atol": 0.002}}},
                           [("y", f32)]) is None
    parsed = {"mode": "parsed", "source_type": "float", "tolerant": {"mode": "parsed", "rel": 1e-6}}
    assert compare_problem(parsed, [("y", dtypes.get("string"))]) is None
    assert "needs a string output" in compare_problem(parsed, [("y", f32)])
