"""gen-cases --find-witnesses: each family's witness search, its catalogue written to generator/witness/catalogue/."""

from __future__ import annotations

import sys

from generator.hypothesis_home import hypothesis_home


def find_witnesses(names: list[str], max_opset: int, budget: int) -> int:
    """Run each family's witness search and write its catalogue (generator/witness/catalogue/)."""
    from generator import witness

    for name in names:
        with hypothesis_home():
            catalogue = witness.find(name, max_opset, budget)
        if catalogue is None:
            print(f"gen-cases: {name}: no witness search", file=sys.stderr)
            continue
        hunted = witness.load(name).get("hunted")
        if hunted:  # what `opconform hunt --keep` found is data no search finds again: keep it
            catalogue["hunted"] = hunted
        path = witness.save(catalogue)
        groups = catalogue["groups"].values()
        found = sum("witnesses" in e for g in groups for e in g["faults"].values())
        open_ = sum("unresolved" in e for g in groups for e in g["faults"].values())
        print(f"gen-cases: {name}: {len(catalogue['groups'])} groups, {found} (group, fault) pairs with witnesses, "
              f"{open_} unresolved -> {path}")
    return 0
