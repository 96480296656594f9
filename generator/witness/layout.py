"""Witnesses of the layout fault models (generator/reference/layout_faults.py): the graph patterns of
generator.families.layout on which each faulty converter gives another output (shape or values outside the
case's tolerance) or refuses the graph.

The patterns are built by hand, one per converter mistake of docs/layout.md (construction); the search
converts every pattern with every fault and runs it on the pattern's data sets (exhaustive over the
catalogue of patterns and the variants its axes add: equal sizes, the RESHAPE form ...). A fault no pattern
kills is an error: add a pattern that does (as `mean_h_keepdims0_softmax` was added for `reduced_layout_dropped`).

A witness (JSON): {"pattern": <case name>, "datasets": [indices of the data sets that kill it]}. The family
writes every pattern anyway, so gen-cases needs nothing from this catalogue; it records which pattern kills
which fault, for the kill matrix and for review.
"""

from __future__ import annotations


def find(max_opset: int, budget: float) -> dict:
    from generator.families import layout as fam
    from generator.reference import layout_faults as LF

    if max_opset is not None and max_opset < fam.OPSET:
        return {}
    datasets = fam.PROFILES["default"]["datasets"]
    cases = [fam.build_case(make, name, 0, datasets) for name, make in sorted(fam.CATALOGUE.items())]
    cases += [c for v in fam.axis_variants() for c in fam.build_variant(v, 0, datasets) if c.kind == "graph"]
    faults: dict = {}
    for fault in LF.FAULTS:
        witnesses = []
        for c in cases:
            meta = dict(c.meta, name=c.name)
            sets = [i for i, (x, y) in enumerate(zip(c.inputs, c.outputs))
                    if LF.killed(fault, meta, y, LF.run(fault, c.model, x, meta))]
            if sets:
                witnesses.append({"pattern": c.name, "datasets": sets})
        if not witnesses:
            raise AssertionError(f"{fault.name}: no pattern of generator/families/layout/patterns.py kills it; add one")
        faults[fault.name] = {"how": "construction", "witnesses": witnesses}
    return {LF.GROUP: {"params": {}, "faults": faults}}
