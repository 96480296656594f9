"""The MatMulInteger family (ONNX MatMulInteger-10): Y = matmul(A - a_zero_point, B - b_zero_point) in int32.

One MatMulInteger node per case (test_matmulinteger_<what>), expected outputs from
generator.reference.matmul_integer only (generator.family.split sends elements whose exact sum leaves int32 to
<name>_probe: the text allows that overflow and names no result). The catalogue (entries.py):
  schema_example         onnx's own example
  a_<t>_b_<t>[_no_zero_points]   the four type pairs T1 x T2 allow, zero points at their types' ends, and absent
  a_zero_point_only, b_zero_point_only (a_zero_point omitted by the empty name), zero_points_one_element ([1])
  per row / per column   a_zero_point [M] and [D1, M, 1], b_zero_point [N] and [D1, 1, N], square shapes (a zero
                         point subtracted along K runs there), both at once
  shapes                 batched, broadcast batch dimensions, 3-D x 2-D and back, 2-D x [2, 1, K, N] and
                         [1, 2, M, K] x 2-D, 1-D A, 1-D B, both 1-D, K = 1; K = 0 (Y zeros), M = 0, N = 0
  far_products_*         products of 255 * 255 ("The production MUST never overflow"), sums beyond int16
  u8_s8_int16_pairs*     raw extremes whose VPMADDUBSW pairs saturate int16 (onnxruntime#16105), K even and odd
  sum_beyond_float32     an odd exact sum beyond 2**24
  int32_ends             sums at int32's ends exactly; one beyond each in int32_ends_probe
  vector_tail            the vector-tail axis: K and N around vector widths, the decisive product / column last
  opset<n>               the opset-boundary axis: a model of opset 11 and of the newest (still MatMulInteger-10)
  config_<i>_random      seeded random configurations (generator.sampling; the only cases --seed changes)
  witness_<group>        the fault models' witnesses, one case per group (generator/witness/catalogue/)
  negative_*             (negative/) types and shapes the text rules out
The explicit-defaults and NaN-payload axes have nothing to act on: MatMulInteger has no attribute and no float.

The family is a package: spec (MM, the model, the node and probe cases of data sets, CATALOGUE), data (drawn data
sets, random configurations), entries (the catalogue), negatives, witnesses (the catalogue's JSON form is
generator/catalogue/matmul_integer.py) and hunt (hunt, rebuild). This module is the family's face.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

import onnx

from generator import axes, sampling
from generator.case import Case
from generator.families.matmul_integer import entries  # noqa: F401  (registers the catalogue)
from generator.families.matmul_integer.data import draw_dataset, mm_cases, random_configurations
from generator.families.matmul_integer.entries import fixed
from generator.families.matmul_integer.hunt import hunt, rebuild
from generator.families.matmul_integer.negatives import negative_cases
from generator.families.matmul_integer.spec import (CATALOGUE, CLAUSE, COMPARE, FAMILY, GRID, MM, OPSET, PROFILES,
                                                    as_reference, dataset_cases, expected, model)
from generator.families.matmul_integer.witnesses import witness_cases

__all__ = ["CATALOGUE", "CLAUSE", "COMPARE", "FAMILY", "GRID", "MM", "OPSET", "PROFILES", "as_reference",
           "boundary_cases", "catalogue_cases", "dataset_cases", "draw_dataset", "expected", "hunt", "model",
           "negative_cases", "random_configurations", "rebuild", "witness_cases", "work"]


def catalogue_cases(n_datasets: int) -> Iterator[Case]:
    """Every catalogue entry's cases: its own data sets, or n drawn ones (base seed 0)."""
    for name in CATALOGUE:
        mm, sets = fixed(name)
        mm = replace(mm, what=name)
        if sets is None:  # zero points at the ends: each of the four corners
            yield from mm_cases(mm, max(n_datasets, 4) if mm.data == "ends" else n_datasets, 0, ["edge"])
        else:
            yield from dataset_cases(mm, sets, 0, ["edge"])


def boundary_opsets(max_opset: int) -> list[int]:
    """MatMulInteger has one version (10): a model of opset 11 and one of the newest still run it."""
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int, n_datasets: int) -> Iterator[Case]:
    """per_row_and_per_column's configuration at each boundary opset: test_matmulinteger_opset<n>."""
    base, _ = fixed("per_row_and_per_column")
    base = replace(base, what="per_row_and_per_column")
    s = sampling.case_seed(0, base.name)
    for opset in boundary_opsets(max_opset):
        stream = sampling.Stream(s)
        sets = [draw_dataset(base, stream, i) for i in range(n_datasets)]
        yield from dataset_cases(replace(base, what=f"opset{opset}", opset=opset), sets, s, ["edge", "opset_boundary"])


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the negatives, the witnesses, the opset boundaries, the random ones."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    def randoms() -> Iterator[Case]:
        for mm in random_configurations(opts["random"], seed):
            yield from mm_cases(mm, n, seed, ["random"])

    return [lambda: catalogue_cases(n), lambda: negative_cases(0), witness_cases,
            lambda: boundary_cases(max_opset, n)] + ([randoms] if opts["random"] else [])
