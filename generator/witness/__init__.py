"""Witnesses: inputs on which a fault model and the reference disagree, one catalogue per family.

`gen-cases --find-witnesses` runs each family's search, `generator/witness/<family>.py`:

    find(max_opset: int, budget: float) -> dict     the catalogue's "groups" (below); budget in seconds
                                                   for the hypothesis part, spread over the groups

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
"""

from __future__ import annotations

import json
from pathlib import Path

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


def searcher(family: str):
    """The family's witness search module, or None."""
    from generator.faults import optional_module

    return optional_module(f"generator.witness.{family}")


def find(family: str, max_opset: int, budget: float) -> dict | None:
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
