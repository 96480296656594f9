"""The QLinear operators family (generator/families/qlinear_ops/): the contract, what the catalogue covers, the
range compare each case states, the opconform backend passing every case written to disk, the kill matrix of the
family's own cases, and the hunt."""

from __future__ import annotations

import dataclasses

import pytest

from generator.families import qlinear_ops as fam
from generator.kill_matrix import KillMatrix
from generator.reference import qlinear_ops as ref
from family_cases import generate, opconform_failures
from hunt_checks import assert_rebuilds


@pytest.fixture(scope="module")
def cases():
    return generate(fam)


def test_the_family_follows_the_contract(cases):
    assert fam.FAMILY.name == "qlinear_ops" and fam.FAMILY.domain == "com.microsoft"
    for c in cases.values():
        op = c.meta["op"]
        assert op in ref.QOPS and c.name.startswith(f"test_{op.lower()}_"), c.name
        assert c.meta["family"] == "qlinear_ops" and c.meta["domain"] == "com.microsoft", c.name
        assert {o.domain: o.version for o in c.model.opset_import} == {"": fam.OPSET, "com.microsoft": 1}
        assert c.model.graph.node[0].op_type == op and c.model.graph.node[0].domain == "com.microsoft"
        if c.kind == "node":
            cmp = c.meta["compare"]
            assert cmp["mode"] == "range" and cmp["chain"]["op"] == op and cmp["tolerant"]["widen"] == 1
            first = ref.QOPS[op].zero_point_first  # QLinearAdd / QLinearMul: the formula's rounding
            assert (cmp["chain"].get("zero_point_first") == 1) == first, c.name
            rounding = ref.READING_FORMULA_ROUNDING if first else ref.READING_ROUNDING
            assert rounding in c.meta["reading"] and ref.READING_FLOAT32 in c.meta["reading"]
        if c.kind == "negative":
            assert c.meta["error"] and c.meta["phase"] in ("prepare", "run"), c.name


def test_the_catalogue_covers_every_operator_and_type(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    assert {(c.meta["op"], c.meta["params"]["t"]) for c in node} == {(op, t) for op in ref.QOPS
                                                                     for t in ("uint8", "int8")}
    pools = [c.meta["params"]["attrs"] for c in node if c.meta["op"] == "QLinearAveragePool"]
    assert {a.get("auto_pad", "NOTSET") for a in pools} == {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}
    assert any(a.get("ceil_mode") for a in pools) and any(a.get("channels_last") for a in pools)
    assert {a.get("count_include_pad", 0) for a in pools} == {0, 1}
    softmax = {c.meta["params"]["attrs"]["opset"] for c in node if c.meta["op"] == "QLinearSoftmax"}
    assert {11, 12, 13} <= softmax
    assert any(c.meta["params"]["omitted"] for c in node) and any(c.meta["params"]["scale_shape"] for c in node)
    probes = {r for c in cases.values() if c.kind == "probe" for r in c.meta["undefined"]}
    assert probes == {ref.UNDEF_Y_SCALE, ref.UNDEF_EMPTY_WINDOW}
    negatives = {c.name for c in cases.values() if c.kind == "negative"}
    assert "test_qlinearadd_negative_add_mixed_types" in negatives and len(negatives) >= 10
    flags = {f for c in node for f in c.meta["flags"]}
    assert {"explicit_defaults", "vector_tail", "random"} <= flags


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_fault_is_killed_where_it_can_differ(cases):
    matrix = KillMatrix(["qlinear_ops"])
    for c in cases.values():
        matrix.add(c)
    m = matrix.matrix()["qlinear_ops"]
    assert m["counts"]["survived"] == 0 and m["score"] == 1.0
    for fault in m["faults"]:
        assert any(row[fault]["status"] == "killed" for row in m["groups"].values()), fault


def test_hunt_examples_rebuild_and_pass(tmp_path):
    from hypothesis import HealthCheck, given, settings
    drawn = []
    slices = fam.hunt(fam.OPSET)
    assert set(slices) == set(ref.QOPS)

    @settings(max_examples=18, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(slices["QLinearAveragePool"] | slices["QLinearConcat"] | slices["QLinearAdd"])
    def collect(example):
        drawn.append(example)

    collect()
    assert drawn
    assert_rebuilds(fam.rebuild, drawn[:4])
    named = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(drawn)
             if ex.case is not None]
    assert opconform_failures(named, tmp_path) == []
