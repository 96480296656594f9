"""Adequacy: every fault model that can differ in a group is killed by some data set of the committed suite
(generator/kill_matrix.py); the kills case.json records are real."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import families, faults
from generator.kill_matrix import STATUSES, read_json
from generator.serialize import graph_io_types, read_case, read_manifest

SUITE = Path(__file__).resolve().parent.parent / "cases"
MATRIX = SUITE / "tables" / "kill_matrix.json"
# every family found (generator/families/): fault models are part of the family contract
FAMILIES_WITH_FAULTS = tuple(sorted(families.FAMILIES))


@pytest.fixture(scope="module")
def matrix() -> dict:
    return read_json(MATRIX.read_text())


def test_every_family_has_fault_models_in_the_matrix(matrix):
    """Every family has fault models (generator/reference/<family>_faults.py), and the matrix covers them."""
    assert set(matrix) == set(FAMILIES_WITH_FAULTS)
    for family in FAMILIES_WITH_FAULTS:
        assert faults.catalogue(family), f"{family} has no fault models (generator/reference/{family}_faults.py)"
        assert family in matrix, family
        assert set(matrix[family]["faults"]) == {f.name for f in faults.catalogue(family)}


def test_no_fault_survives(matrix):
    survivors = [(family, group, fault) for family, fm in matrix.items() for group, row in fm["groups"].items()
                 for fault, entry in row.items() if entry["status"] == "survived"]
    assert not survivors, f"{len(survivors)} (group, fault) pairs survive the suite, e.g. {survivors[:5]}"


def test_every_fault_is_killed_somewhere_or_equivalent_everywhere(matrix):
    for family, fm in matrix.items():
        for fault in fm["faults"]:
            st = {row[fault]["status"] for row in fm["groups"].values()}
            assert "killed" in st or st <= {"equivalent", "not applicable"}, (family, fault)
            assert st <= set(STATUSES)


def test_equivalent_pairs_say_how(matrix):
    for fm in matrix.values():
        for row in fm["groups"].values():
            for entry in row.values():
                if entry["status"] == "equivalent":
                    assert entry["how"].strip()
                if entry["status"] == "killed":
                    assert entry["by"] and entry["n"] >= len(entry["by"])


def test_recorded_kills_are_real():
    """A sample of committed node cases: each fault case.json says a data set kills does differ there, and the
    opconform references (no fault) never do."""
    entries = [e for e in read_manifest(SUITE)["cases"] if e["kind"] == "node" and e["family"] in FAMILIES_WITH_FAULTS]
    checked = 0
    for e in entries[::97]:
        case = read_case(SUITE / "node" / e["name"])
        kills = case.meta.get("kills")
        if not kills:
            continue
        by_name = faults.by_name(case.meta["family"])
        types = [t for _, t in graph_io_types(case.model)[1]]
        for i, names in enumerate(kills):
            for name in names[:3]:
                try:
                    out = faults.fault_outputs(by_name[name], case.model, case.inputs[i], case.meta)
                except faults.Refusal:  # it raises where the case requires a result: killed (an error verdict)
                    checked += 1
                    continue
                assert faults.differs(case.outputs[i], out, types, case.meta["compare"]), (e["name"], i, name)
                checked += 1
    assert checked > 20


def test_the_markdown_table_shows_where_each_fault_was_seen():
    """kill_matrix.md's per-family table has a "seen in" column: each fault's seen_in on its row, on one line,
    a pipe in it escaped (it would split the cell); "-" where a fault has none."""
    from generator.kill_matrix import markdown

    seen = "onnxruntime 1.32.0, measured here | Cast\nkernel"
    m = {"fam": {"groups": {"g": {"fam.a": {"status": "killed", "by": ["c[0]"], "n": 1},
                                  "fam.b": {"status": "not applicable"}}},
                 "counts": dict.fromkeys(STATUSES, 0), "score": 1.0,
                 "faults": {"fam.a": {"what": "a | b", "seen_in": seen}, "fam.b": {"what": "b", "seen_in": ""}}}}
    lines = markdown(m).splitlines()
    assert "| fault | what | seen in | killed in groups | equivalent | survived |" in lines
    assert "| `fam.a` | a \\| b | onnxruntime 1.32.0, measured here \\| Cast kernel | 1 | 0 | 0 |" in lines
    assert "| `fam.b` | b | - | 0 | 0 | 0 |" in lines
