"""The DequantizeLinear family (generator/families/dequantize_linear.py): the contract, what the catalogue covers
(every version, every input type at the version that adds it, each granularity, output_dtype, float8e8m0 scales,
negatives), the compare each case states, and the opconform backend passing every case written to disk."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from generator import dtypes
from generator.families import dequantize_linear as fam
from generator.family import PROBE_COMPARE, Family
from generator.reference import dequantize_linear as ref
from generator.serialize import read_case, write_case
from runners.backends.registry import get_backend
from runners.execute import run_case_dataset
from family_cases import generate, opconform_failures
from hunt_checks import assert_rebuilds


@pytest.fixture(scope="module")
def cases():
    return generate(fam, max_opset=ref.OPSETS[-1])


def test_the_family_follows_the_contract(cases):
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == "dequantize_linear"
    assert fam.FAMILY.op == "DequantizeLinear" and set(fam.PROFILES) == {"quick", "default", "exhaustive"}
    for c in cases.values():
        assert c.name.startswith("test_dequantizelinear_") and c.meta["family"] == fam.FAMILY.name, c.name
        assert c.meta["spec"]["file"] == f"onnx.defs:DequantizeLinear-{ref.version(c.meta['opset'])}", c.name
        if c.kind == "probe":
            assert c.meta["compare"] == PROBE_COMPARE and c.meta["undefined"] and c.name.endswith("_probe"), c.name
        if c.kind == "negative":  # types / attributes: refused at prepare; shapes: at prepare or run, on data
            assert c.meta["error"] and (c.meta["phase"], bool(c.inputs)) in (("prepare", False), ("run", True)), c.name


def test_every_version_and_every_input_type_at_its_first_version(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    # every version, and (the opset-boundary axis) the opset after each change
    assert {c.meta["opset"] for c in node} == set(ref.OPSETS) | {v + 1 for v in ref.OPSETS[1:-1]}
    for v in ref.OPSETS:
        assert {"int8", "uint8"} <= {c.meta["params"]["x"] for c in node if c.meta["opset"] == v}
    for t, since in ref._T1_SINCE.items():
        assert any(c.meta["params"]["x"] == t and c.meta["opset"] == since for c in node), t
        if dtypes.get(t).bits <= 8:  # every bit pattern, with each scale type
            for s in ("float", "float16", "bfloat16"):
                assert any(c.meta["params"]["x"] == t and c.meta["params"]["scale"] == s
                           and c.inputs[0][0].size == 1 << dtypes.get(t).bits for c in node), (t, s)
    # float8e8m0 scales and each output type
    assert {c.meta["params"]["output"] for c in node if c.meta["params"]["scale"] == "float8e8m0"} == set(ref._T3)


def test_granularities_negative_axes_and_zero_points(cases):
    params = [c.meta["params"] for c in cases.values() if c.kind == "node"]
    for g in ("per-tensor", "per-axis", "blocked"):
        if g != "per-tensor":
            assert any(p["granularity"] == g and p["negative_axis"] for p in params), g
        assert any(p["granularity"] == g and not p["zero_point"] for p in params), g
        assert any(p["granularity"] == g and p["zero_point"] for p in params), g
    short = [c for c in cases.values() if c.kind == "node" and c.meta["params"]["granularity"] == "blocked"
             and c.inputs[0][0].shape[c.meta["params"]["axis"]] % c.meta["params"]["block_size"]]
    assert short  # a last block shorter than block_size


def test_each_textual_change_is_checked_where_it_holds(cases):
    assert any(c.meta["opset"] == 19 and "rank of the input is 1" in c.meta["spec"]["clause"] for c in cases.values())
    out_dtype = [c for c in cases.values() if c.kind == "node" and "output_dtype" in c.name]
    assert out_dtype and all(c.meta["opset"] == 23 for c in out_dtype)
    assert any(c.meta["params"]["output"] != c.meta["params"]["scale"] for c in out_dtype)


def test_negatives_cover_types_shapes_and_attributes(cases):
    neg = {c.name.removeprefix("test_dequantizelinear_negative_"): c for c in cases.values() if c.kind == "negative"}
    assert {"zero_point_type_differs", "zero_point_shape_differs", "per_axis_length_differs", "axis_out_of_range",
            "block_size_too_small", "block_size_too_large", "output_dtype_double", "e8m0_scale_without_output_dtype",
            "float8e4m3fn_opset13", "int4_opset19", "int2_opset24", "float6e2m3_opset25"} <= set(neg)
    for name, c in neg.items():  # each is refused by the reference's own checks, at prepare
        from generator.interpret import compile_model

        with pytest.raises(ValueError):
            compile_model(c.model, validate=True)


def test_compare_is_exact_unless_intermediate_precisions_part(cases):
    for c in cases.values():
        if c.kind != "node":
            continue
        spread = 0
        attrs = {a.name: a for a in c.model.graph.node[0].attribute}
        out = attrs.get("output_dtype")
        for ins in c.inputs:
            _, sp = ref.dequantize_linear_explained(
                ins[0], ins[1], ins[2] if len(ins) > 2 else None, axis=attrs["axis"].i if "axis" in attrs else 1,
                block_size=attrs["block_size"].i if "block_size" in attrs else 0,
                output_dtype=out.i if out is not None else None, opset=c.meta["opset"], x_type=c.meta["params"]["x"],
                scale_type=c.meta["params"]["scale"])
            spread = max(spread, int(sp.max(initial=0)))
        if spread:
            assert c.meta["compare"] == {"mode": "ulp", "ulp": spread, "reason": c.meta["compare"]["reason"]}, c.name
            assert c.meta["reading"], c.name
        else:
            assert c.meta["compare"]["mode"] == "exact", c.name


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    bad = opconform_failures(cases.values(), tmp_path)
    assert not bad, bad[:5]


def test_quick_is_deterministic_and_max_opset_filters():
    def made(profile, max_opset=ref.OPSETS[-1]):
        return [(c.name, c.meta["opset"], c.model.SerializeToString(deterministic=True))
                for unit in fam.work(profile, 0, max_opset) for c in unit()]

    assert made("quick") == made("quick")
    low = made("quick", 13)
    assert low and all(v <= 13 for _, v, _ in low) and {v for _, v, _ in low} == {10, 12, 13}  # 12: the boundary axis
    assert fam.work("quick", 0, 9) == []


def test_the_suite_stays_small(cases):
    total = sum(sum(a.nbytes for a in ins) for c in cases.values() for ins in c.inputs)
    total += sum(sum(np.asarray(a).nbytes for a in outs) for c in cases.values() for outs in (c.outputs or []))
    assert len(cases) < 480 and total < 3_000_000  # 45 of them witness groups of zero_scale_folded alone


# ---------------------------------------------------------------------------------------
# the hunt strategy (hunt / hunt_example / rebuild)
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hunted(hypothesis_home) -> list:
    from hunt_draws import draw_runs

    return [e for strat in fam.hunt(ref.OPSETS[-1]).values() for e in draw_runs(strat, 2, 8)]


def test_hunt_examples_are_valid_cases_that_opconform_passes(hunted, tmp_path):
    b = get_backend("opconform")
    kinds = set()
    for k, e in enumerate(hunted):
        for case in (e.case, e.probe):
            if case is None:
                continue
            kinds.add(case.kind)
            case = dataclasses.replace(case, name=f"{case.name}_{k}")
            write_case(case, tmp_path)
            loaded = read_case(tmp_path / case.kind / case.name)
            r = run_case_dataset(b, loaded, 0, "strict", {})
            assert r.verdict == ("pass" if case.kind == "node" else "probe"), r.message
    assert kinds == {"node", "probe"}


def test_hunt_draws_kill_every_fault_model(hunted):
    from generator.kill_matrix import KillMatrix
    from generator.reference import dequantize_linear_faults as F

    km = KillMatrix(["dequantize_linear"])
    for e in hunted:
        if e.case is not None:  # add() writes "kills" into the metadata: a copy's
            km.add(dataclasses.replace(e.case, meta=dict(e.case.meta)))
    rows = km.matrix()["dequantize_linear"]["groups"].values()
    killed = {f for row in rows for f, st in row.items() if st["status"] == "killed"}
    assert killed == {f.name for f in F.FAULTS}


def test_rebuild_gives_every_hunt_example_again(hunted):
    assert_rebuilds(fam.rebuild, hunted[:: 7])


def test_hunt_is_none_below_opset_10_and_slices_follow_max_opset():
    assert fam.hunt(9) is None
    assert set(fam.hunt(13)) == {"int8", "uint8", "int32"}
