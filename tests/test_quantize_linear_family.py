"""The QuantizeLinear family (generator/families/quantize_linear.py): the contract, a case per semantics at an opset
where it holds, every output type of every version, negatives the reference refuses, a generated suite the
opconform backend passes (probes recorded), within its size budget."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, families
from generator.families import quantize_linear as fam
from generator.family import PROBE_COMPARE, Family
from generator.reference import quantize_linear as ref
from family_cases import generate

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def cases():
    return generate(fam, max_opset=28)


def test_the_family_follows_the_contract(cases):
    assert families.FAMILIES["quantize_linear"] == fam.__name__
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == "quantize_linear" and fam.FAMILY.op == "QuantizeLinear"
    assert set(fam.PROFILES) == set(families.PROFILES)
    assert all(k.startswith("test_quantizelinear_") for k in fam.CATALOGUE)
    for c in cases.values():
        assert (c.meta["family"], c.meta["op"]) == ("quantize_linear", "QuantizeLinear"), c.name
        assert c.meta["params"]["version"] == ref.schema_version(c.meta["opset"]), c.name
        if c.kind == "probe":
            assert c.meta["compare"] == PROBE_COMPARE and c.meta["undefined"] and c.outputs is None, c.name


def test_every_version_and_every_output_type_has_a_node_case(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    assert {c.meta["params"]["version"] for c in node} == set(ref.VERSIONS)
    for v in ref.VERSIONS:
        have = {c.meta["params"]["y"] for c in node if c.meta["params"]["version"] == v}
        if v in (10, 19, 21, 23, 25, 28):  # every type is tested where it appears, and all at 25
            new = set(ref.output_types(v)) - (set(ref.output_types(max(u for u in ref.VERSIONS if u < v)))
                                              if v > 10 else set())
            assert new <= have, (v, new - have)
    assert set(ref.output_types(25)) <= {c.meta["params"]["y"] for c in node if c.meta["opset"] == 25}


def test_granularities_axes_and_attributes_are_covered(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    assert {c.meta["params"]["granularity"] for c in node} >= {"per-tensor", "per-axis", "blocked"}
    axes = {c.meta["params"]["attrs"].get("axis") for c in node}
    assert {0, -1, -3} <= axes
    sat = {(c.meta["params"]["y"], c.meta["params"]["saturate"]) for c in node}
    assert all((t, s) in sat for t in dtypes.FLOAT8_SATURATE_TYPES for s in (0, 1))
    od = [c.meta["params"] for c in node if c.meta["params"]["attrs"].get("output_dtype")]
    assert {p["zero_point"] is None for p in od} == {True, False}
    for y, v in (("float4e2m1", 23), ("int2", 25)):  # output_dtype where each type arrives, with and without
        assert {p["zero_point"] is None for p in od if (p["y"], p["version"]) == (y, v)} == {True, False}, y
    newest = ref.schema_version(fam.NEWEST_RUNNABLE)  # saturate=0 at the newest runnable opset too
    assert all((t, 0) in {(c.meta["params"]["y"], c.meta["params"]["saturate"]) for c in node
                          if c.meta["params"]["version"] == newest} for t in dtypes.FLOAT8_SATURATE_TYPES)
    assert any(c.meta["params"]["precision"] != c.meta["params"]["scale"] for c in node)  # the precision attribute


def test_fnuz_inf_row_is_checked_once_per_semantics(cases):
    for t in ("float8e4m3fnuz", "float8e5m2fnuz"):
        y23 = cases[f"test_quantizelinear_{t}_inf_saturate_opset23"].outputs[0][0].astype(np.float64)
        y24 = cases[f"test_quantizelinear_{t}_inf_saturate_opset24"].outputs[0][0].astype(np.float64)
        assert np.isnan(y23[:2]).all() and y24[:2].tolist() == [dtypes.get(t).finite_max, -dtypes.get(t).finite_max]
        assert cases[f"test_quantizelinear_{t}_inf_saturate_opset23"].meta["reading"]


def test_negatives_are_refused_by_the_reference(cases):
    from generator.interpret import compile_model, run_program

    neg = [c for c in cases.values() if c.kind == "negative"]
    assert len(neg) >= 8
    for c in neg:
        assert c.meta["phase"] in ("prepare", "run") and c.meta["error"], c.name
        with pytest.raises(ValueError):
            run_program(compile_model(c.model, validate=True), c.inputs[0])


# the opset-boundary axis's negatives whose rule is a type constraint or an attribute list (the name holds one
# of `checked` below): one opset below the version that brings the type or attribute
BOUNDARY_NEGATIVES = ("block_size_attribute_opset20", "precision_attribute_opset22", "float4_zero_point_opset22")


def test_negatives_the_schema_s_type_constraints_or_attributes_rule_out_fail_onnx_s_checker(cases):
    """A negative whose rule is a type constraint or an attribute list is refused by onnx.checker too (the shape
    rules, which onnx's inference does not check, are the texts' alone)."""
    import onnx

    checked = ("scale_not_x_type", "zero_point_int16", "output_dtype_not_zero_point_type", "block_size_attribute",
               "float4_zero_point", "scale_float8e8m0_opset23", "int2_zero_point", "precision_attribute",
               "zero_point_int32")
    neg = [c for c in cases.values() if c.kind == "negative" and any(k in c.name for k in checked)]
    assert len(neg) == len(checked) + len(BOUNDARY_NEGATIVES)  # each checked rule, some at c and at c - 1
    for c in neg:
        with pytest.raises((onnx.checker.ValidationError, onnx.shape_inference.InferenceError)):
            onnx.checker.check_model(c.model, full_check=True)


def test_the_mx_layout_float4e2m1_over_float8e8m0_blocks(cases):
    """Blocks of 32 along the last axis, one power-of-two e8m0 scale each: x / scale is exact in float32, so y is
    the float4e2m1 conversion of the block's quotients: every value, ties to even, beyond 6 saturating."""
    c = cases["test_quantizelinear_blocked_float4e2m1_float8e8m0_scales_block32_opset24"]
    assert c.meta["params"]["granularity"] == "blocked" and c.meta["params"]["scale"] == "float8e8m0"
    for (x, s), (y,) in zip(c.inputs, c.outputs):
        q = x.astype(np.float64) / np.repeat(s.astype(np.float64), 32, axis=1)
        assert np.unique(s.astype(np.float64)).size == 4
        for row_q, row_y in zip(q, y.astype(np.float64)):
            for b in range(2):
                assert row_q[32 * b:32 * b + 32].tolist() == row_q[:32].tolist()  # the same quotients in each block
                assert row_y[32 * b:32 * b + 32].tolist() == row_y[:32].tolist()
        ties = {0.25: 0.0, 0.75: 1.0, 1.25: 1.0, 1.75: 2.0, 2.5: 2.0, 3.5: 4.0, 5.0: 4.0, 7.0: 6.0, 100.0: 6.0}
        got = dict(zip(q[0, :32].tolist(), y.astype(np.float64)[0, :32].tolist()))
        assert all(got[k] == v and got[-k] == -v for k, v in ties.items() if k != 100.0) and got[100.0] == 6.0


def test_the_expected_outputs_are_the_reference_s(cases):
    from generator.interpret import compile_model, run_program

    for c in cases.values():
        if c.kind != "node":
            continue
        prog = compile_model(c.model)
        for inputs, outputs in zip(c.inputs, c.outputs):
            (y,) = run_program(prog, inputs)
            t = dtypes.from_numpy(y.dtype)
            want = outputs[0]
            assert y.dtype == want.dtype, c.name
            assert np.array_equal(t.to_bits(y) if t.is_float else y, t.to_bits(want) if t.is_float else want), c.name


def test_generated_suite_passes_on_opconform_and_stays_small(pytester, capsys):
    """gen-cases and pytest in this process (no interpreter to start for either)."""
    from generator import cli

    out = pytester.path / "ql"
    assert cli.main(["--family", "quantize_linear", str(out)]) == 0
    capsys.readouterr()
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    n = sum(1 for kind in ("node", "probe", "negative") for _ in (out / kind).iterdir())
    assert size < 5_000_000 and n < 450, (size, n)  # 402 cases since issue 33's float16 x witnesses of x_precision
    r = pytester.runpytest(str(out), "--backend", "opconform", "-q", "-p", "no:cacheprovider")
    assert r.ret == 0, r.stdout.str()[-2000:]


@pytest.mark.parametrize("name, fault", [
    ("scale_float16_divides_in_float16_opset23", "divide_in_float32"),
    ("scale_bfloat16_divides_in_bfloat16_opset23", "divide_in_float32"),
    ("precision_float16_with_float32_scale_opset23", "divide_in_float32"),
    ("int8_ties_saturation_opset10", "round_half_away"),
    ("int8_ties_saturation_opset10", "zero_point_before_rounding"),
    ("uint16_ties_saturation_opset21", "wrap"),
    ("per_axis_negative_axis_opset13", "axis_ignored"),
    ("blocked_axis1_short_last_block_opset21", "blocks_from_end"),
    ("float8e5m2_nosaturate_opset19", "saturate_ignored"),
    ("float8e4m3fn_nosaturate_opset25", "saturate_ignored"),
    ("float8e4m3fnuz_nosaturate_opset25", "saturate_ignored"),
    ("float8e5m2_nosaturate_opset25", "saturate_ignored"),
    ("float8e5m2fnuz_nosaturate_opset25", "saturate_ignored"),
    ("float8_zero_point_added_opset19", "float_zero_point_ignored"),
    ("float8e4m3fnuz_inf_saturate_opset23", "fnuz_inf_saturates"),
])
def test_a_case_tells_the_fault_its_name_is_about(cases, name, fault):
    """Each named case discriminates on its own (not only through the witness cases)."""
    from generator import faults
    from generator.reference import quantize_linear_faults as F

    c = cases[f"test_quantizelinear_{name}"]
    f = {x.name: x for x in F.FAULTS}[f"quantize_linear.{fault}"]
    types = [dtypes.from_numpy(c.outputs[0][0].dtype)]
    assert any(faults.differs(out, faults.fault_outputs(f, c.model, ins, c.meta), types)
               for ins, out in zip(c.inputs, c.outputs)), (name, fault)


# ---------------------------------------------------------------------------------------
# the hunt strategy (generator/hunting.py)
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hunted(hypothesis_home):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from hunt_draws import draw_runs

    return {k: draw_runs(s, 6, 30) for k, s in fam.hunt(28).items()}


def test_hunt_slices_and_opsets():
    assert fam.hunt(9) is None and set(fam.hunt(13)) == {"integer"} and set(fam.hunt(28)) == {"integer", "float"}


def test_hunted_examples_are_valid_and_rebuild(hunted, tmp_path):
    import json

    from generator.serialize import read_case, write_case

    reasons = set()
    for k, examples in hunted.items():
        for i, ex in enumerate(examples):
            assert ex.case is not None or ex.probe is not None
            again = fam.rebuild(json.loads(json.dumps(ex.args)))
            for case, twin in ((ex.case, again.case), (ex.probe, again.probe)):
                if case is None:
                    assert twin is None
                    continue
                assert twin.name == case.name and all(a.tobytes() == b.tobytes()
                                                      for a, b in zip(twin.inputs[0], case.inputs[0]))
                if i < 15:
                    write_case(case, tmp_path / f"{k}{i}")
                    read_case(tmp_path / f"{k}{i}" / case.kind / case.name)
            if ex.probe is not None:
                reasons.update(ex.probe.meta["undefined"])
    assert {ref.UNDEF_NAN_TO_INT, ref.UNDEF_INF_TO_INT} <= reasons


def test_hunted_cases_pass_on_opconform_and_kill_every_fault(hunted):
    from generator import faults
    from generator.interpret import compile_model, run_program
    from generator.reference import quantize_linear_faults as F

    killed = set()
    for examples in hunted.values():
        for ex in examples:
            if ex.case is None:
                continue
            c = ex.case
            (y,) = run_program(compile_model(c.model, validate=True), c.inputs[0])
            assert not faults.differs(c.outputs[0], [y], [dtypes.from_numpy(y.dtype)]), c.name
            for f in F.FAULTS:
                if f.name in killed:
                    continue
                try:  # an ignored axis past a rank-1 x cannot run: no kill (as in the kill matrix)
                    got = faults.fault_outputs(f, c.model, c.inputs[0], c.meta)
                except faults.Refusal:  # it raises where a result is due: killed (as in the kill matrix)
                    killed.add(f.name)
                    continue
                except ValueError:
                    continue
                if faults.differs(c.outputs[0], got, [dtypes.from_numpy(y.dtype)]):
                    killed.add(f.name)
    assert killed == {f.name for f in F.FAULTS}, sorted({f.name for f in F.FAULTS} - killed)
