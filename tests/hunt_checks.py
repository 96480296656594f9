"""Checks every hunt strategy test makes (tests/test_hunt_<family>.py and the family tests that hunt): rebuild(args)
gives an example again, and which fault models the drawn cases kill."""

from __future__ import annotations

import dataclasses
import json
from typing import Callable, Iterable

from generator.kill_matrix import KillMatrix
from generator.serialize import case_files


def assert_rebuilds(rebuild: Callable, examples: Iterable) -> None:
    """rebuild(args), after a JSON round trip of the args (what `opconform hunt --keep` stores), gives each
    example's case and probe again: the same name, metadata and files."""
    for ex in examples:
        again = rebuild(json.loads(json.dumps(ex.args)))
        for mine, theirs in ((ex.case, again.case), (ex.probe, again.probe)):
            assert (mine is None) == (theirs is None), ex.args
            if mine is not None:
                assert theirs.name == mine.name and theirs.meta == mine.meta, ex.args
                assert case_files(theirs) == case_files(mine), ex.args


def hunt_kills(family: str, examples: Iterable) -> set[str]:
    """The fault models of `family` that the drawn cases kill: each example's judged case (not its probe), on a
    copy named apart (<name>_<i>), added to a KillMatrix; a node or graph case kills what a data set's "kills"
    names, a negative case what its "kills" lists."""
    matrix = KillMatrix([family])
    killed: set[str] = set()
    for i, ex in enumerate(examples):
        if ex.case is None:
            continue
        case = dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}", meta=dict(ex.case.meta))
        matrix.add(case)
        kills = case.meta.get("kills") or []
        killed.update(kills if case.kind == "negative" else (name for per_set in kills for name in per_set))
    return killed
