"""ConvertPromoteTypes fault models (generator/reference/convert_promote_types_faults/), their witnesses
(generator/witness/convert_promote_types.py, the committed catalogue) and the witness cases of the family."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from generator import dtypes, gen_cases_args, sampling, witness
from generator.families import convert_promote_types as fam
from generator.families.convert_promote_types.values import edge_values
from generator.families.convert_promote_types.variant import EXACT
from generator.families.convert_promote_types.witnesses import WITNESS
from generator.catalogue.convert_promote_types import decode
from generator.faults import same_elements
from generator.reference import convert_promote_types as ref
from generator.reference import convert_promote_types_faults as F
from generator.reference.convert_promote_types_faults.conversions import convert_via_float32
from generator.reference.convert_promote_types_faults.decisions import rdecide
from generator.reference.convert_promote_types_faults.groups import params_of
from generator.reference.convert_promote_types_faults.values import differing
from generator.witness import convert_promote_types as W

CATALOGUE = witness.load(F.FAMILY)
GROUPS = W.group_variants()


def _node_outputs(fn, inputs, types, attrs):
    return fn(inputs, attrs, 14, types)


def _attrs(params: dict) -> dict:
    return {"promote_unsafe": int(params["promote_unsafe"]),
            "pytorch_scalar_promotion": int(params["pytorch_scalar_promotion"]),
            "u64_integer_promotion_target": params["u64_integer_promotion_target"]}


def _witness_inputs(w: dict, t0, t1) -> list[np.ndarray]:
    return [decode(w[f"input_{k}"], t).reshape(w["shapes"][k]) for k, t in enumerate((t0, t1))]


def _differs(fault, inputs, types, attrs) -> bool:
    """Does the fault's node function give another output (type, value) than the reference, or refuse?"""
    expected = _node_outputs(ref.convert_promote_types_node, inputs, types, attrs)
    try:
        got = _node_outputs(fault.fn, inputs, types, attrs)
    except ref.PromotionError:
        return True
    return F.killed(fault, {"compare": EXACT}, expected, got)


def test_catalogue_names_and_fields():
    names = [f.name for f in F.FAULTS]
    assert len(set(names)) == len(names)
    for f in F.FAULTS:
        assert f.name.startswith("convert_promote_types.") and f.what
        assert callable(f.fn) and callable(f.fn.validate)
    assert set(F.DECISION_FAULTS) | set(F.VALUE_FAULTS) == set(F.FAULTS)


def test_every_witness_tells_its_fault_from_the_reference():
    """Each catalogue witness: the fault's outputs differ (type, value, refusal), or, for a negative witness,
    the reference refuses the pair with those shapes and the fault accepts it."""
    checked = 0
    for key, entry in CATALOGUE["groups"].items():
        t0, t1, _, a = params_of(entry["params"])
        attrs = _attrs(entry["params"])
        for name, found in entry["faults"].items():
            fault = F.BY_NAME[name]
            assert found["how"] in ("construction", "exhaustive", "search")
            assert found["witnesses"], (key, name)
            for w in found["witnesses"]:
                shapes = [tuple(s) for s in w["shapes"]]
                if w.get("negative"):
                    assert F.decide_reference(t0, t1, *shapes, a).common is None, (key, name)
                    assert fault.fn.decide(t0, t1, *shapes, a).common is not None, (key, name)
                else:
                    inputs = _witness_inputs(w, t0, t1)
                    for x, t in zip(inputs, (t0, t1)):  # every witness value is defined for the reference
                        assert ref.convert(x, t, F.decide_reference(t0, t1, *shapes, a).common).defined
                    assert _differs(fault, inputs, [t0, t1], attrs), (key, name, w)
                checked += 1
    assert checked > 2000


def test_catalogue_is_complete_and_only_for_faults_that_can_differ():
    """The committed catalogue matches the fault code: a witness for every (group, fault) that is not
    equivalent, none for an equivalent one (rerun gen-cases --find-witnesses when this fails)."""
    missing, extra = [], []
    for key, v in GROUPS.items():
        params = W.group_params(v)
        have = CATALOGUE["groups"].get(key, {}).get("faults", {})
        for fault in F.FAULTS:
            equivalent = fault.equivalent(params)
            if equivalent is None and fault.name not in have:
                missing.append((key, fault.name))
            if equivalent is not None and fault.name in have:
                extra.append((key, fault.name))
    assert not missing, missing[:10]
    assert not extra, extra[:10]


def _sample_values(t, seed: int) -> np.ndarray:
    """The edge catalogue of a type, every value of a <= 16-bit type, and 512 seeded draws (PCG64)."""
    x = edge_values(t)
    if t.kind == "bool" or t.bits <= 16:
        return np.concatenate([x, np.array([False, True]) if t.kind == "bool" else t.all_values()]).astype(t.np_dtype)
    rng = np.random.Generator(np.random.PCG64(seed))
    draws = (rng.integers(t.int_min, t.int_max, 512, dtype=t.np_dtype, endpoint=True) if t.is_integer
             else t.from_bits(rng.integers(0, (1 << t.bits) - 1, 512, dtype=np.uint64, endpoint=True)))
    return np.concatenate([x, draws]).astype(t.np_dtype)


def test_value_equivalences_hold_on_inputs_of_their_groups():
    """Where a value fault is claimed equivalent in a group, it converts every sampled value of both input
    types to the group's common type as the reference does (each (fault, type, common type) once)."""
    seen = set()
    for key, v in GROUPS.items():
        params = W.group_params(v)
        t0, t1, ranks, a = params_of(params)
        common = rdecide(t0, t1, *ranks, a).common
        if common is None:
            continue
        for fault in F.VALUE_FAULTS:
            if fault.equivalent(params) is None:
                continue
            for t in (t0, t1):
                if (fault.name, t.name, common.name) in seen:
                    continue
                seen.add((fault.name, t.name, common.name))
                x = _sample_values(t, sampling.case_seed(0, f"{t.name}-{common.name}"))
                out = ref.convert(x, t, common)
                y, ok = out.outputs[0], ~out.mask()
                z = np.asarray(fault.fn.convert(x[ok], t, common)).astype(common.np_dtype)
                same = same_elements(y[ok], z, common)
                assert same.all(), (key, fault.name, t.name, x[ok][~same][:3])
    assert len(seen) > 500


def test_decision_equivalences_hold_on_inputs_of_their_groups():
    """Where a decision fault is claimed equivalent in a group, its node function gives the reference's
    output type and values (or both refuse) on inputs of every shape the group allows: a scalar, a (1,) and a
    (3,) / (1, 3) tensor (one group in 5: the groups are many and alike)."""
    n = 0
    for key in sorted(GROUPS)[::5]:
        params = W.group_params(GROUPS[key])
        t0, t1, ranks, _ = params_of(params)
        attrs = _attrs(params)
        faults = [f for f in F.DECISION_FAULTS if f.equivalent(params) is not None]
        if not faults:
            continue
        shapes = [[()] if r == 0 else [(1,), (3,) if k == 0 else (1, 3)] for k, r in enumerate(ranks)]
        for s0 in shapes[0]:
            for s1 in shapes[1]:
                inputs = [np.ones(s, dtype=t.np_dtype) for s, t in ((s0, t0), (s1, t1))]
                try:
                    expected = ref.convert_promote_types_node(inputs, attrs, 14, [t0, t1])
                except ref.PromotionError:
                    expected = None
                for fault in faults:
                    if expected is None:
                        with pytest.raises(ref.PromotionError):
                            fault.fn(inputs, attrs, 14, [t0, t1])
                        continue
                    got = fault.fn(inputs, attrs, 14, [t0, t1])
                    assert not F.killed(fault, {"compare": EXACT}, expected, got), (key, fault.name, s0, s1)
                    n += 1
    assert n > 1000


# ---------------------------------------------------------------------------------------
# the faults reproduce what was measured / what they say
# ---------------------------------------------------------------------------------------
DOC_ACCEPTED = [("u8", "i8"), ("u16", "i8"), ("u4", "i4"), ("u8", "i4"), ("u16", "i16"), ("u32", "i16"),
                ("u32", "i32"), ("u64", "i32"), ("u64", "i64"), ("bf16", "f16"), ("f8e5m2", "f8e4m3")]


def test_pytorch_safe_bit_width_accepts_exactly_what_openvino_accepts():
    """docs/convert_promote_types.md: OpenVINO accepts 22 negative cases, S(scalar) / D(dim) with the scalar on
    either side; the fault accepts exactly those among the pairs the reference refuses."""
    fault = F.BY_NAME["convert_promote_types.pytorch_safe_bit_width"]
    a = {"promote_unsafe": False, "pytorch_scalar_promotion": True, "u64_integer_promotion_target": "f32"}
    accepted = set()
    for s in ref.spec_types():
        for d in ref.spec_types():
            if F.decide_reference(s, d, (), (3,), a).common is None and fault.fn.decide(s, d, (), (3,), a).common:
                accepted.add((ref.element_name(s), ref.element_name(d)))
                assert fault.fn.decide(d, s, (3,), (), a).common == d
    assert accepted == set(DOC_ACCEPTED)


def _convert(name: str, values, src: str, to: str) -> np.ndarray:
    t = dtypes.get(src)
    return F.VALUE_CONVERTS[name](np.array(values, dtype=object if t.is_integer else None).astype(t.np_dtype),
                                  t, dtypes.get(to))


def test_value_faults_reproduce_the_measured_openvino_values():
    assert np.isinf(_convert("via_float16", [61439], "int32", "float8e5m2").astype(np.float64)).all()
    assert ref.convert(np.array([61439], np.int32), "int32", "float8e5m2").outputs[0].astype(np.float64)[0] == 57344
    assert _convert("int64_held_in_32_bits", [-(2**63), 2**53 + 1], "int64", "int64").tolist() == [0, 1]
    assert _convert("int64_held_in_32_bits", [2**31], "uint64", "uint64").tolist() == [18446744071562067968]
    y = _convert("f64_held_in_f32", [1 / 3, np.inf, -np.inf], "double", "double")
    assert y.tolist() == [0.3333333432674408, 3.4028234663852886e38, -3.4028234663852886e38]
    # integer -> bf16 through f32: 2**25 + 2**17 + 1 is a tie of bf16 after rounding to f32
    x = 2**25 + 2**17 + 1
    assert _convert("via_float32", [x], "int32", "bfloat16").astype(np.float64).tolist() == [2.0**25]
    assert ref.convert(np.array([x], np.int32), "int32", "bfloat16").outputs[0].astype(np.float64).tolist() == [2.0**25 + 2**18]
    assert _convert("float8_saturated", [np.inf], "float16", "float8e5m2").astype(np.float64).tolist() == [57344.0]


def test_a_different_output_type_is_a_kill_and_a_refusal_returns_nothing():
    fault = F.BY_NAME["convert_promote_types.mixed_sign_max_width"]
    v = fam.Variant(dtypes.get("int8"), dtypes.get("uint8"), (1, 2), True, False, name="t")
    model = fam.model(v, dtypes.get("int16"), ((2,), (1, 2)))
    inputs = [np.array([1, 2], np.int8), np.array([[3, 4]], np.uint8)]
    expected = [np.array([1, 2], np.int16), np.array([[3, 4]], np.int16)]
    got = F.run(fault, model, inputs, {})
    assert [g.dtype for g in got] == [np.int8, np.int8]  # the same values in another type
    assert F.killed(fault, {"compare": EXACT}, expected, got)
    assert not F.killed(fault, {"compare": EXACT}, expected, [e.copy() for e in expected])
    refusing = F.BY_NAME["convert_promote_types.scalar_rule_across_priorities"]
    v = fam.Variant(dtypes.get("float16"), dtypes.get("int8"), (0, 2), False, True, name="t")
    model = fam.model(v, dtypes.get("float16"), ((), (1, 2)))
    assert F.run(refusing, model, [np.array(1.5, np.float16), np.array([[1, 2]], np.int8)], {}) == []
    assert F.refuses(refusing, model) and not F.refuses(F.BY_NAME["convert_promote_types.via_float32"], model)


def test_element_count_fault_needs_a_one_element_tensor():
    fault = F.BY_NAME["convert_promote_types.scalar_by_element_count"]
    a = {"promote_unsafe": True, "pytorch_scalar_promotion": True, "u64_integer_promotion_target": "f32"}
    i32, i8 = dtypes.get("int32"), dtypes.get("int8")
    assert fault.fn.decide(i32, i8, (1,), (1, 3), a).common == i8  # (1,) taken for a scalar
    assert F.decide_reference(i32, i8, (1,), (1, 3), a).common == i32
    assert fault.fn.decide(i32, i8, (3,), (1, 3), a).common == i32


def test_hypothesis_search_finds_double_rounding_witnesses():
    """The fallback search (unused where construction succeeds) finds a witness by itself, within gen-cases
    --find-witnesses' default budget (examples per search)."""
    found = W._search("via_float32", dtypes.get("int32"), dtypes.get("bfloat16"), gen_cases_args.DEFAULT_BUDGET)
    assert found
    x = np.array(found, dtype=np.int32)
    assert differing(convert_via_float32, x, dtypes.get("int32"), dtypes.get("bfloat16")).size


def test_the_search_gives_the_same_witness_however_slow_the_clock_runs(monkeypatch):
    """A loaded machine is a clock that runs fast between two examples. The search stops after a number of
    examples, never at a time: its witness is the same when a minute passes at every reading of the clock
    (a time limit read inside the test function made a witness found near its end fail to reproduce on
    hypothesis's replay, FlakyFailure, or no witness at all)."""
    i32, bf16 = dtypes.get("int32"), dtypes.get("bfloat16")
    calm = W._search("via_float32", i32, bf16, gen_cases_args.DEFAULT_BUDGET)
    real = time.monotonic
    readings = itertools.count()
    monkeypatch.setattr(time, "monotonic", lambda: real() + 60.0 * next(readings))
    assert W._search("via_float32", i32, bf16, gen_cases_args.DEFAULT_BUDGET) == calm


# ---------------------------------------------------------------------------------------
# witness cases
# ---------------------------------------------------------------------------------------
def _witness_cases():
    values = fam.Values(fam.PROFILES["default"], 0)
    return [c for t in ref.spec_types() for c in fam.witness_cases(t, "default", values, 0)]


def test_witness_cases_kill_the_faults_they_name():
    cases = _witness_cases()
    node = [c for c in cases if c.kind == "node"]
    negative = [c for c in cases if c.kind == "negative"]
    assert node and negative and len(cases) < 1000
    for c in node:
        assert c.name.endswith(WITNESS) and c.meta["witness_for"]
        for name in c.meta["witness_for"]:
            fault = F.BY_NAME[name]
            assert any(F.killed(fault, c.meta, y, F.run(fault, c.model, x, c.meta))
                       for x, y in zip(c.inputs, c.outputs)), (c.name, name)
        for x, y in zip(c.inputs, c.outputs):  # the reference's own outputs pass
            assert not F.killed(F.REFERENCE, c.meta, y, F.run(F.REFERENCE, c.model, x, c.meta))
    count = F.BY_NAME["convert_promote_types.scalar_by_element_count"]
    for c in negative:
        sizes = [int(np.prod([d.dim_value for d in v.type.tensor_type.shape.dim])) for v in c.model.graph.input
                 if len(v.type.tensor_type.shape.dim)]
        assert 1 in sizes, c.name  # a one-element dimensioned input: what the matrix's negative cases lack
        assert F.refuses(F.REFERENCE, c.model) and not F.refuses(count, c.model), c.name


def test_value_faults_reproduce_the_measured_iree_values():
    """IREE 3.13 llvm-cpu: f8e4m3fn 0xFF (-NaN) -> -480 (0x7F stays NaN); f32 / bf16 subnormals -> +-0 in f64."""
    t = dtypes.get("float8e4m3fn")
    x = t.from_bits(np.array([0xFF, 0x7F, 0xFE, 0x01], dtype=np.uint64))
    y = F.VALUE_CONVERTS["float8e4m3fn_negative_nan_as_number"](x, t, dtypes.get("float")).astype(np.float64)
    assert y[0] == -480.0 and np.isnan(y[1]) and y[2:].tolist() == [-448.0, 2.0**-9]
    y = _convert("denormals_flushed_to_f64", [1.401298464324817e-45, -1.401298464324817e-45, 1.1754943508222875e-38],
                 "float", "double")
    assert y.tolist() == [0.0, -0.0, 1.1754943508222875e-38] and np.signbit(y[1])
    y = _convert("denormals_flushed_to_f64", [9.183549615799121e-41, 1.0], "bfloat16", "double")
    assert y.tolist() == [0.0, 1.0]
    assert _convert("denormals_flushed_to_f64", [9.183549615799121e-41], "bfloat16", "float").tolist() != [0.0]
