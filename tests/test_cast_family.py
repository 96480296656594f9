"""The Cast family: coverage of every (from, to, attribute) variant, the edge catalogue, exhaustive
inputs, the split between pass/fail cases and probes, and the versioned FNUZ row."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest

from generator import dtypes, reference
from generator.families import cast as fam
from generator.families.cast.inputs import edge_inputs
from generator.families.cast.variant import NOTE_FLOAT6, NOTE_INT2, NOTE_INT4
from generator.family import PROBE_COMPARE, Family
from generator.outcome import Outcome
from generator.reference import cast as ref
from generator.reference.cast_reasons import (READING_E8M0_NOSAT, READING_E8M0_SATURATE, READING_NUMBER_TO_STRING,
                                              READING_STRING_TO_INT, READING_TRUNCATION, ROUND_MODES, UNDEF_FLOAT6_NAN,
                                              UNDEF_FLOAT_TO_INT_OOR, UNDEF_FLOAT_TO_SUBBYTE_OOR, UNDEF_NAN_TO_INT)
from generator.reference.cast import cast

READINGS_DOC = Path(__file__).resolve().parents[1] / "docs" / "readings.md"


@pytest.fixture(scope="module")
def default_cases():
    cases = []
    for unit in fam.work("default", 0, fam.NEWEST_CAST):
        cases.extend(unit())
    return cases


def _by_name(cases):
    return {c.name: c for c in cases}


def test_every_pair_the_newest_cast_allows_is_a_variant():
    schema = onnx.defs.get_schema("Cast", fam.NEWEST_CAST)
    allowed = {s[len("tensor("):-1] for s in schema.type_constraints[0].allowed_type_strs}
    seen = {(v.src.name, v.to.name, v.saturate, v.round_mode) for v in fam.variants(fam.NEWEST_CAST)}
    for a in allowed:
        for b in allowed:
            to = dtypes.get(b)
            if to.is_float8:
                wanted = [(a, b, s, None) for s in (True, False)]
            elif to.nan_style == dtypes.E8M0:
                wanted = [(a, b, s, m) for s in (True, False) for m in ROUND_MODES]
            else:
                wanted = [(a, b, None, None)]
            for w in wanted:
                assert w in seen, w


def test_every_variant_has_a_case(default_cases):
    have = {}
    for c in default_cases:
        p = c.meta["params"]
        have.setdefault((p["from"], p["to"], p.get("saturate"), p.get("round_mode")), set()).add(c.kind)
    for v in fam.variants(fam.NEWEST_CAST):
        key = (v.src.name, v.to.name, None if v.saturate is None else int(v.saturate), v.round_mode)
        assert key in have, key
    # all-undefined pairs exist only as probes; everything else has a node case
    only_probe = sorted(k for k, kinds in have.items() if "node" not in kinds)
    assert only_probe == [("bool", "string", None, None), ("string", "bool", None, None)], only_probe


def test_node_cases_hold_only_defined_inputs_and_probes_only_undefined(default_cases):
    for c in default_cases:
        if c.meta["op"] != "Cast" or c.kind not in ("node", "probe"):
            continue
        p = c.meta["params"]
        x = c.inputs[0][0]
        y, why, reading = ref.cast_explained(x, p["from"], p["to"], saturate=bool(p.get("saturate", 1)),
                                             round_mode=p.get("round_mode", "up"), opset=c.meta["opset"])
        if c.kind == "node":
            assert (why == "").all(), c.name
            # case.json names every reading its expectations rest on (in any of its data sets: a vector-tail case
            # holds several), and no other
            for inputs in c.inputs[1:]:
                more = ref.cast_explained(inputs[0], p["from"], p["to"], saturate=bool(p.get("saturate", 1)),
                                          round_mode=p.get("round_mode", "up"), opset=c.meta["opset"])[2]
                reading = np.concatenate([reading.ravel(), more.ravel()])
            assert c.meta.get("reading") == ("; ".join(ref.readings(reading)) or None), c.name
            to = dtypes.get(p["to"])
            if to.kind == "string":
                assert list(y.ravel()) == list(c.outputs[0][0].ravel()), c.name
            else:
                assert np.array_equal(to.to_bits(y), to.to_bits(c.outputs[0][0])), c.name
        else:
            assert (why != "").all() and set(why.ravel()) <= set(c.meta["undefined"]), c.name


def test_exhaustive_cases_cover_every_bit_pattern_of_narrow_sources(default_cases):
    cases = _by_name(default_cases)
    for src in ["float8e4m3fn", "float8e5m2fnuz", "float4e2m1", "int4", "uint2", "uint8", "float8e8m0"]:
        d = dtypes.get(src)
        for to in ["float", "int8", "float8e4m3fn"]:
            base = f"test_cast_{dtypes.short(d)}_to_{dtypes.short(dtypes.get(to))}"
            seen = []
            for what in ("exhaustive", "probe"):
                c = cases.get(f"{base}_{what}")  # undefined patterns live in the probe
                if c is not None:
                    seen.append(d.to_bits(c.inputs[0][0]))
            bits = set(np.concatenate(seen).tolist())
            assert bits >= set(range(1 << d.bits)), (base, sorted(set(range(1 << d.bits)) - bits)[:5])


def test_edge_catalogue_float32_to_e4m3fn_has_the_boundary_values():
    x = edge_inputs(dtypes.get("float"), dtypes.get("float8e4m3fn")).astype(np.float64)
    for v in [0.0, 448.0, 464.0, 480.0, -448.0, -464.0, 2.0**-9, 2.0**-10, 1.5 * 2.0**-9, 2.0**-6,
              1 + 2.0**-4, np.inf, -np.inf]:
        assert v in x, v
    assert np.signbit(x[x == 0]).any() and (~np.signbit(x[x == 0])).any(), "both zeros"
    assert np.isnan(x).sum() == 2, "NaN of both signs"
    # just inside / outside the overflow tie 464: the float32 neighbours
    assert np.nextafter(np.float32(464), np.float32(0)) in x.astype(np.float32)
    assert np.nextafter(np.float32(464), np.float32(1000)) in x.astype(np.float32)


def test_edge_catalogue_int_sources_have_wrap_and_rounding_boundaries():
    x = [int(v) for v in edge_inputs(dtypes.get("int32"), dtypes.get("int8"))]
    for v in [127, 128, -128, -129, 255, 256, 2**31 - 1, -(2**31)]:
        assert v in x, v
    x = [int(v) for v in edge_inputs(dtypes.get("int64"), dtypes.get("float16"))]
    for v in [2049, 2051, 65504, 65520, 2**53 + 1, 2**63 - 1, -(2**63)]:
        assert v in x, v


def test_fnuz_inf_row_exists_once_per_semantics(default_cases):
    cases = _by_name(default_cases)
    for to, fmax in [("float8e4m3fnuz", 240.0), ("float8e5m2fnuz", 57344.0)]:
        old = cases[f"test_cast_float32_to_{to}_inf_opset19"]
        new = cases[f"test_cast_float32_to_{to}_inf_opset24"]
        assert old.meta["opset"] == 19 and new.meta["opset"] == 24
        assert np.isnan(old.outputs[0][0].astype(np.float64)).all()
        assert list(new.outputs[0][0].astype(np.float64)) == [fmax, -fmax]
        # the version-independent edge case holds no infinity
        edge = cases[f"test_cast_float32_to_{to}_edge"].inputs[0][0]
        assert not np.isinf(edge).any()


def test_nan_sign_cases_compare_the_sign(default_cases):
    c = _by_name(default_cases)["test_cast_float32_to_float8e4m3fn_nosat_negative_nan"]
    assert c.meta["compare"]["nan_sign"] is True
    assert list(dtypes.get("float8e4m3fn").to_bits(c.outputs[0][0])) == [0xFF, 0xFF]


def test_shape_cases(default_cases):
    cases = _by_name(default_cases)
    for src in dtypes.cast_types(fam.NEWEST_CAST):
        if src.name == "float":
            continue
        for a, b in [(src, dtypes.get("float")), (dtypes.get("float"), src)]:
            base = f"test_cast_{dtypes.short(a)}_to_{dtypes.short(b)}"
            if f"{base}_edge" not in cases:
                continue
            assert cases[f"{base}_scalar"].inputs[0][0].shape == ()
            assert cases[f"{base}_empty"].inputs[0][0].shape == (0,)
            assert cases[f"{base}_3d"].inputs[0][0].shape == (2, 3, 4)


def test_attributes_left_at_their_default_are_omitted():
    v = next(v for v in fam.variants(fam.NEWEST_CAST) if v.to.name == "float8e8m0" and v.saturate and v.round_mode == "up")
    assert v.attrs == {"to": onnx.TensorProto.FLOAT8E8M0}
    v = next(v for v in fam.variants(fam.NEWEST_CAST) if v.to.name == "float8e8m0" and not v.saturate and v.round_mode == "down")
    assert v.attrs == {"to": onnx.TensorProto.FLOAT8E8M0, "saturate": 0, "round_mode": "down"}
    assert v.base_name.endswith("_nosat_down")


def test_case_opsets_are_the_first_that_accept_the_pair():
    for v in fam.variants(fam.NEWEST_CAST):
        assert v.opset == max(fam.MIN_OPSET, v.src.cast_since, v.to.cast_since)
        allowed = onnx.defs.get_schema("Cast", v.opset).type_constraints[0].allowed_type_strs
        assert f"tensor({v.src.name})" in allowed and f"tensor({v.to.name})" in allowed


def test_fractions_to_sub_byte_integers_are_judged_by_the_int4_and_int2_notes(default_cases):
    cases = _by_name(default_cases)
    for to, want in (("int4", [0, 2, 2, 0, -2, -2]), ("uint4", [0, 2, 2]), ("int2", [0, 0, -2]), ("uint2", [0, 2, 2])):
        edge = cases[f"test_cast_float32_to_{to}_edge"]
        x, y = edge.inputs[0][0], edge.outputs[0][0].astype(np.int64)
        ties = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5] if to == "int4" else [0.5, 1.5, 2.5] if to.startswith("u") \
            else [0.5, -0.5, -1.5]
        got = [int(y[x == np.float32(t)][0]) for t in ties]
        assert got == want, (to, got)
        assert edge.meta["spec"]["file"] == (NOTE_INT4 if to.endswith("4") else NOTE_INT2)
        assert "nearest-even" in edge.meta["spec"]["clause"] and "reading" not in edge.meta
        probe = cases[f"test_cast_float32_to_{to}_probe"]
        assert set(probe.meta["undefined"]) == {UNDEF_NAN_TO_INT, UNDEF_FLOAT_TO_SUBBYTE_OOR}, to
    # every tie of int4 and its float32 neighbours (a rounding done as x + 0.5 in float32 rounds 0.49999997 up)
    x = set(edge_inputs(dtypes.get("float"), dtypes.get("int4")).tolist())
    for k in range(-8, 7):
        t = np.float32(k + 0.5)
        assert {float(t), float(np.nextafter(t, np.float32(-9))), float(np.nextafter(t, np.float32(9)))} <= x, k
    # float4e2m1 fits int4: every pattern is judged, no probe is left
    assert "test_cast_float4e2m1_to_int4_probe" not in cases
    assert cases["test_cast_float4e2m1_to_int4_exhaustive"].inputs[0][0].size == 16


def test_negative_zero_to_float6_is_judged_by_the_float6_note(default_cases):
    cases = _by_name(default_cases)
    for to in ("float6e2m3", "float6e3m2"):
        edge = cases[f"test_cast_float32_to_{to}_edge"]
        x = edge.inputs[0][0]
        neg_zero = (x == 0) & np.signbit(x)
        assert neg_zero.sum() == 1
        assert dtypes.get(to).to_bits(edge.outputs[0][0][neg_zero]).tolist() == [0x20]
        assert edge.meta["spec"]["file"] == NOTE_FLOAT6 and "-0.0 -> -0.0" in edge.meta["spec"]["clause"]
        assert cases[f"test_cast_float32_to_{to}_probe"].meta["undefined"] == [UNDEF_FLOAT6_NAN]
    for src in ("float6e2m3", "float6e3m2", "float4e2m1"):  # -0 of one small format to another: judged
        assert f"test_cast_{src}_to_float6e2m3_probe" not in cases


def test_readings_are_named_in_case_json(default_cases):
    cases = _by_name(default_cases)
    assert READING_TRUNCATION in cases["test_cast_float32_to_int8_edge"].meta["reading"]
    assert ref.READING_IEEE_RNE in cases["test_cast_float64_to_float32_edge"].meta["reading"]
    assert ref.READING_IEEE_RNE in cases["test_cast_int64_to_float16_edge"].meta["reading"]
    assert READING_E8M0_SATURATE in cases["test_cast_float32_to_float8e8m0_down_edge"].meta["reading"]
    assert READING_E8M0_NOSAT in cases["test_cast_float32_to_float8e8m0_nosat_edge"].meta["reading"]
    assert READING_NUMBER_TO_STRING in cases["test_cast_int32_to_string_edge"].meta["reading"]
    assert READING_STRING_TO_INT in cases["test_cast_string_to_int32_edge"].meta["reading"]
    for name in ("test_cast_float32_to_int4_edge", "test_cast_float32_to_float8e4m3fn_edge",
                 "test_cast_float32_to_float6e2m3_edge", "test_cast_int32_to_int8_edge", "test_cast_float32_to_bool_edge",
                 "test_cast_float16_to_float32_edge", "test_cast_float32_to_float8e8m0_nosat_nearest_edge"):
        assert "reading" not in cases[name].meta, name
    assert sum("reading" in c.meta for c in default_cases) > 500


def test_every_reading_is_explained_in_docs_readings_md():
    text = READINGS_DOC.read_text(encoding="utf-8")
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}
    for r in ref.READINGS:
        anchor = re.search(r"docs/readings\.md#([a-z0-9-]+)", r).group(1)
        assert anchor in anchors, anchor


def test_the_family_follows_the_contract(default_cases):
    """FAMILY is a Family named for its module; the reference returns an Outcome (what cast() / cast_explained()
    give as arrays); every case is stamped by FAMILY.meta and split by generator.family.split."""
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == fam.__name__.rsplit(".", 1)[1] == "cast"
    assert fam.FAMILY.op == "Cast" and fam.FAMILY.prefix == "test_cast"
    x = np.array([1.5, np.nan, 300.0, -2.0], dtype=np.float32)
    out = ref.cast_outcome(x, "float", "int8")
    assert isinstance(out, Outcome)
    assert out.reasons == sorted([UNDEF_NAN_TO_INT, UNDEF_FLOAT_TO_INT_OOR])
    assert out.mask().tolist() == [False, True, True, False]
    y, why, reading = ref.cast_explained(x, "float", "int8")
    assert np.array_equal(y, out.outputs[0]) and np.array_equal(why != "", out.mask())
    assert np.array_equal(ref.explain(x, "float", "int8")[1], reading)
    node = reference.lookup("", "Cast")([x], {"to": onnx.TensorProto.INT8}, 13, [dtypes.get("float")])
    assert np.array_equal(node[0], y)
    assert list(fam.CATALOGUE) == ["data_sets", "fnuz_inf", "negative_nan", "shapes", "witness", "explicit_defaults",
                                   "nan_payloads", "vector_tail", "opset_boundaries"]
    for c in default_cases:
        assert c.meta["family"] == "cast" and c.meta["op"] == "Cast" and c.name.startswith(fam.FAMILY.prefix)
        if c.kind == "probe":
            assert c.name.endswith("_probe") and c.meta["compare"] == PROBE_COMPARE and c.meta["undefined"]
            assert "reading" not in c.meta
