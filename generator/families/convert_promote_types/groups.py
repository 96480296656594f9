"""The family's parameter groups (pair, ranks, attributes) as its fault models key them: each group's first variant,
for the witness search (generator/witness/convert_promote_types.py), the witness cases and the hunt."""

from __future__ import annotations

from functools import lru_cache

from generator.families.convert_promote_types.cases import onnx_opset
from generator.families.convert_promote_types.variant import example_variants, matrix_variants, target_variants
from generator.reference.convert_promote_types_faults.decisions import rdecide
from generator.reference.convert_promote_types_faults.groups import key_of, params_of


@lru_cache(maxsize=None)
def _all_groups() -> dict:
    groups: dict[str, object] = {}
    variants = list(matrix_variants()) + list(target_variants()) + [v for v, _ in example_variants()]
    for v in variants:
        groups.setdefault(key_of(v.params), v)
    return groups


def group_variants(max_opset: int | None = None) -> dict[str, object]:
    """Every parameter group of the family: key -> its first variant (matrix, targets, examples); with
    max_opset, only those whose function body needs no newer ai.onnx opset."""
    groups = _all_groups()
    if max_opset is None:
        return dict(groups)
    out = {}
    for key, v in groups.items():
        t0, t1, ranks, a = params_of(group_params(v))
        d = rdecide(t0, t1, *ranks, a)
        common = d.common or rdecide(t0, t1, *ranks, dict(a, promote_unsafe=True)).common
        if onnx_opset(v.t0, v.t1, common) <= max_opset:
            out[key] = v
    return out


def group_params(v) -> dict:
    p = dict(v.params)
    p.pop("attributes", None)
    return p
