"""Witnesses: inputs on which a fault model and the reference disagree, one catalogue per family.

`gen-cases --find-witnesses` runs each family's search, `generator/witness/<family>.py`:

    find(max_opset: int, budget: int) -> dict       the catalogue's "groups" (below); budget: hypothesis
                                                   examples for each search (a (group, fault) pair that
                                                   construction and enumeration leave open)

A search stops after a number of examples, never at a time, and is derandomized without a database: the same
code, options and hypothesis version give the same catalogue on a fast machine and on a loaded one. A
witness a search returns is checked against the reference directly (not by a hypothesis replay).

and writes `generator/witness/catalogue/<family>.json`, committed as data. gen-cases only reads it
(`load`): the family module turns each group's witnesses into node cases, so a suite never depends on
which hypothesis version (if any) is installed.

Catalogue format:
    {"family": F, "found_with": {"hypothesis": version, "numpy": version},
     "groups": {<group key>: {"params": {...},
                              "faults": {<fault name>: {"how": "construction" | "exhaustive" | "search",
                                                         "witnesses": [<family-specific, JSON>...]}
                                                      | {"equivalent": "<how that was shown>"}}}}}
A group key is what generator/reference/<family>_faults.py's group_key(meta) gives for the cases of
that group. Faults absent from a group have no witness there (see the kill matrix for why).

Findings of `opconform hunt --keep` (runners/hunt.py) are added to the catalogue as
     "hunted": [{"name": "hunted_<digest>", "group": <group key>, "args": <what was drawn>,
                 "found": {"backend", "backend_version", "verdict", "signature"}}...]
and gen-cases rebuilds each with the family's rebuild(args) (generator/hunting.py): the inputs drawn, the
expected outputs from the reference of the day (inputs the spec now leaves undefined go to a probe).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

CATALOGUE_DIR = Path(__file__).parent / "catalogue"


def path(family: str) -> Path:
    return CATALOGUE_DIR / f"{family}.json"


def load(family: str) -> dict:
    """The committed catalogue of a family ({} groups if there is none yet)."""
    p = path(family)
    if not p.exists():
        return {"family": family, "groups": {}}
    return json.loads(p.read_text(encoding="utf-8"))


def dumps(catalogue: dict) -> str:
    return json.dumps(catalogue, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def group_faults(faults: Iterable, params: dict, witnesses_of: Callable[[object], tuple[str, list]]) -> dict:
    """One group's "faults" entry of the catalogue: {fault name: {"equivalent": proof} | {"how", "witnesses"}}.

    faults: the family's fault models (generator/reference/<family>_faults.py FAULTS), in order; params: the
    group's params as fault.equivalent(params) takes them (with "opset"). A fault whose equivalent(params)
    gives a proof gets {"equivalent": proof} and no search; for each other one, witnesses_of(fault) gives
    (how, witnesses): how "construction" | "exhaustive" | "search", the witnesses already in the family's JSON
    form. A fault with no witness is left out (the kill matrix says why)."""
    out = {}
    for fault in faults:
        proof = fault.equivalent(params)
        if proof:
            out[fault.name] = {"equivalent": proof}
            continue
        how, witnesses = witnesses_of(fault)
        if witnesses:
            out[fault.name] = {"how": how, "witnesses": list(witnesses)}
    return out


def searcher(family: str):
    """The family's witness search module, or None."""
    from generator.faults import optional_module

    return optional_module(f"generator.witness.{family}")


def find(family: str, max_opset: int, budget: int) -> dict | None:
    """Run a family's search; the catalogue it gives (not written), or None if the family has no search."""
    mod = searcher(family)
    if mod is None:
        return None
    import hypothesis

    groups = mod.find(max_opset, budget)
    return {"family": family, "found_with": {"hypothesis": hypothesis.__version__, "numpy": np.__version__},
            "groups": groups}


def save(catalogue: dict) -> Path:
    p = path(catalogue["family"])
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".json.tmp")
    tmp.write_text(dumps(catalogue), encoding="utf-8")
    tmp.replace(p)
    return p


def hunted_cases(family: str, module, max_opset: int):
    """The cases of the catalogue's "hunted" findings, rebuilt by the family module (its rebuild(args)):
    named <the family's name for it>_<entry name>, flagged "hunted", with "hunted" (who found it) in case.json."""
    import dataclasses

    entries = load(family).get("hunted") or []
    if entries and getattr(module, "rebuild", None) is None:
        raise ValueError(f"generator/witness/catalogue/{family}.json holds hunted findings, but the {family} "
                         "family has no rebuild(args)")
    for entry in entries:
        if int(entry["args"].get("opset", 0)) > max_opset:
            continue
        example = module.rebuild(entry["args"])
        for case in (example.case, example.probe):
            if case is None:
                continue
            base = case.name.removesuffix("_hunt").removesuffix("_hunt_probe")
            suffix = "_probe" if case.kind == "probe" else ""
            flags = sorted(set(case.meta.get("flags", [])) - {"hunt"} | {"hunted"})
            yield dataclasses.replace(case, name=f"{base}_{entry['name']}{suffix}",
                                      meta=dict(case.meta, flags=flags, hunted=entry["found"]))
