"""runners.diagnose.candidates: worked out once per (family, parameter group, catalogue), not once per failing
data set, and still what the catalogue installed now says."""

from __future__ import annotations

import types

import generator.faults
from generator.faults import Fault
from runners import diagnose


def _catalogue(monkeypatch, faults: tuple[Fault, ...]) -> None:
    module = types.SimpleNamespace(FAULTS=faults)
    monkeypatch.setattr(generator.faults, "module", lambda family: module if family == "fam" else None)


def _meta(**params) -> dict:
    return {"family": "fam", "opset": 13, "params": params}


def test_candidates_worked_out_once_per_group_and_catalogue(monkeypatch):
    asked = []

    def equivalent(params):
        asked.append(dict(params))
        return "cannot differ" if params.get("to") == "float" else None

    faults = (Fault("fam.a", "a", fn=None, equivalent=equivalent), Fault("fam.b", "b", fn=None))
    _catalogue(monkeypatch, faults)
    for _ in range(3):  # three failing data sets (or cases) of one group
        assert [f.name for f in diagnose.candidates(_meta(to="int8"))] == ["fam.a", "fam.b"]
    assert len(asked) == 1
    assert [f.name for f in diagnose.candidates(_meta(to="float"))] == ["fam.b"]  # another group: asked again
    assert len(asked) == 2
    assert [f.name for f in diagnose.candidates({**_meta(to="int8"), "opset": 19})] == ["fam.a", "fam.b"]
    assert len(asked) == 3  # the opset is part of the group
    diagnose.candidates(_meta(to="int8")).clear()  # a caller's list is its own: the cache keeps its answer
    assert [f.name for f in diagnose.candidates(_meta(to="int8"))] == ["fam.a", "fam.b"]
    assert len(asked) == 3

    # another catalogue (a fault module changed or patched) is asked anew, never served from the cache
    _catalogue(monkeypatch, (Fault("fam.c", "c", fn=None, applies=lambda params: False), Fault("fam.d", "d", fn=None)))
    assert [f.name for f in diagnose.candidates(_meta(to="int8"))] == ["fam.d"]
    monkeypatch.setattr(generator.faults, "module", lambda family: None)
    assert diagnose.candidates(_meta(to="int8")) is None
