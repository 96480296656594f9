"""The ConvertPromoteTypes family (OpenVINO ConvertPromoteTypes-14; its specification: docs/specs.md).

Every ordered pair of the element types the spec's rules cover x promote_unsafe x pytorch_scalar_promotion x
input ranks (dimensioned / scalar on each side), plus u64 + signed with several u64_integer_promotion_target
values, plus every example of the spec text with the spec's result.

  <name>           node/: both inputs converted to the common type (values of Cast); case.json "common_type"
  <name>_random    node/: seeded random values of the types wider than 8 bits (both inputs dimensioned)
  <name>[_random]_probe  probe/: the elements that conversion leaves undefined (outside the common type's range)
  <name>           negative/: safe mode must refuse the pair (phase prepare); only a native implementation
                   can, so case.json "native" makes every other backend report it not applicable

Names: test_convert_promote_types_<type 0>_<type 1>_<dim|scalar>_<dim|scalar>_<safe|unsafe>[_pytorch]
[_target_<t>], and test_convert_promote_types_example_<what> for the spec's examples. The promotion table is
written with the suite (extra_files). The model is one node ConvertPromoteTypes (domain org.openvinotoolkit, version 14) and a
model-local function of that name: two Casts to the common type (in a negative case, to the type unsafe mode
gives), so ONNX backends can run the value part. A scalar input gets one data set per value it takes.

`hunt(max_opset)`: the live hunt's strategy (generator/hunting.py): one group and one data set per example,
built as the cases above, biased to the groups and values where the fault models part from the reference.

Expected values come from generator.reference.convert_promote_types (Cast: generator.reference.cast) only:
its Outcome per data set, which generator.family.split turns into the node case and the probe (the family
contract, generator/family.py); a pair safe mode refuses raises there and is a negative case instead.

The package, by concern: variant.py (variants, the spec's examples), values.py (per-type values), cases.py (the
model, negative, node and probe cases), table.py (the promotion table), groups.py (the fault models' parameter
groups), witnesses.py (the committed witnesses as cases), constructions.py (where a value fault shows),
hunt_strategy.py (opconform hunt). This module is the family (generator/family.py): its catalogue and units.
"""

from __future__ import annotations

from typing import Callable, Iterator

import onnx

from generator import dtypes
from generator.case import Case
from generator.dtypes import DType
from generator.family import Catalogue
from generator.families.convert_promote_types.cases import example_case, model, variant_cases
from generator.families.convert_promote_types.hunt_strategy import hunt, rebuild
from generator.families.convert_promote_types.table import promotion_table
from generator.families.convert_promote_types.values import Values
from generator.families.convert_promote_types.variant import (FAMILY, MIN_OPSET, PROFILES, Variant, example_variants,
                                                              pair_variants, target_variants)
from generator.families.convert_promote_types.witnesses import witness_cases
from generator.reference import convert_promote_types as ref

GRID = ("input_0", "input_1", ("promote_unsafe", "pytorch_scalar_promotion"))  # the report's grid

# ---------------------------------------------------------------------------------------
# the catalogue: fn(values, seed, matrix) -> the cases of one thing checked, each named for it: the matrix of
# one ordered pair (<type 0>_<type 1>: its shapes x attributes, matrix "all" or "reduced" as the profile says),
# the u64_integer_promotion_target pairs, one example of the spec text each (example_<what>)
# ---------------------------------------------------------------------------------------
CATALOGUE = Catalogue(FAMILY.prefix + "_")


def _pair_entry(t0: DType, t1: DType) -> Callable[[Values, int, str], Iterator[Case]]:
    def pair(values: Values, seed: int, matrix: str) -> Iterator[Case]:
        for v in pair_variants(t0, t1, matrix):
            yield from variant_cases(v, values, seed, ["matrix"])
    return pair


for _t0 in ref.spec_types():
    for _t1 in ref.spec_types():
        CATALOGUE.add(f"{dtypes.short(_t0)}_{dtypes.short(_t1)}", _pair_entry(_t0, _t1))


@CATALOGUE
def u64_target(values: Values, seed: int, matrix: str) -> Iterator[Case]:
    """u64 beside a signed integer, unsafe, with each target of U64_TARGETS."""
    for v in target_variants():
        yield from variant_cases(v, values, seed, ["u64_target"])


for _v, _result in example_variants():
    CATALOGUE.add(_v.name.removeprefix(CATALOGUE.prefix),
                  lambda values, seed, matrix, v=_v, result=_result: example_case(v, result, values, seed))


TABLE_PATH = "tables/convert_promote_types.md"


def extra_files(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> dict[str, bytes]:
    """Files written into the suite beside the cases (gen-cases --check covers them)."""
    return {TABLE_PATH: promotion_table().encode("utf-8")}


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: one per catalogue entry (an ordered pair of types, the targets, an example of the
    spec), one per type for the witness cases."""
    values = Values(PROFILES[profile], seed)
    newest = onnx.defs.onnx_opset_version() if max_opset is None else max_opset
    matrix = PROFILES[profile]["matrix"]

    def keep(cases: Iterator[Case]) -> Iterator[Case]:
        return (c for c in cases if c.meta["opset"] <= newest)

    units = [lambda fn=fn: keep(fn(values, seed, matrix)) for fn in CATALOGUE.values()]
    witnesses = [lambda a=a: keep(witness_cases(a, profile, values, seed)) for a in ref.spec_types()]
    return units + witnesses


# model and Variant: imported from here by tests/test_openvino_backend.py
__all__ = ["FAMILY", "GRID", "MIN_OPSET", "PROFILES", "CATALOGUE", "TABLE_PATH", "Variant", "extra_files", "hunt",
           "model", "rebuild", "work"]
