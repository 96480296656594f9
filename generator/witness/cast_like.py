"""Witnesses for CastLike: Cast's (generator/witness/catalogue/cast.json), group by group; no search of its own.

CastLike-N is Cast-N with the target type read from target_type (generator/reference/cast_like.py), and its fault
models are Cast's (generator/reference/cast_like_faults.py). Cast's semantics for a pair change only at opsets
where Cast's catalogue has a group of that pair (the pair's first opset; 24 for the FNUZ saturate=1 Inf row), so a
CastLike group (from, to, saturate, round_mode, opset) behaves as the Cast group of the same parameters at the
newest of those opsets not above its own: that group's witnesses and equivalences hold for it, under the names
cast_like.<what>. Each group records which Cast group it is ("same_as"). The groups are Cast's search groups of
CastLike's variants and the opset-boundary axis's (generator.families.cast_like.boundary_opsets).
"""

from __future__ import annotations

from generator import witness
from generator.families import cast_like as family
from generator.faults import group_params
from generator.reference import cast_like_faults
from generator.witness import cast as cast_search


def _cast_groups() -> dict[tuple, dict[int, str]]:
    """Cast's catalogue: parameters (opset aside) -> {opset: group key}."""
    out: dict[tuple, dict[int, str]] = {}
    for key, entry in witness.load("cast")["groups"].items():
        params = dict(entry["params"])
        opset = params.pop("opset")
        out.setdefault(tuple(sorted(params.items())), {})[opset] = key
    return out


def groups(max_opset: int) -> list:
    """(variant, opset) of every group the family writes node cases for: Cast's, and the boundary axis's."""
    out = cast_search.groups(max_opset, family.variants)
    for v in family.variants(max_opset):
        out += [(v, o) for o in family.boundary_opsets(v, max_opset)]
    return out


def find(max_opset: int, budget: float) -> dict:
    """The catalogue's groups, from Cast's (budget unused: nothing is searched)."""
    cast_groups, cast_catalogue = _cast_groups(), witness.load("cast")["groups"]
    result = {}
    for v, opset in groups(max_opset):
        same = cast_groups.get(tuple(sorted(v.params.items())), {})
        below = [o for o in same if o <= opset]
        if not below:
            continue
        source = same[max(below)]
        faults = {f"cast_like.{name.split('.', 1)[1]}": found
                  for name, found in cast_catalogue[source]["faults"].items()}
        params = group_params({"params": v.params, "opset": opset})
        result[cast_like_faults.group_key({"params": v.params, "opset": opset})] = {
            "params": {k: params[k] for k in sorted(params)}, "same_as": source, "faults": faults}
    return result
