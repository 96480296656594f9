"""The MatMulIntegerToFloat family (com.microsoft MatMulIntegerToFloat-1, onnxruntime's contrib schema):
Y = matmul((A - a_zero_point) * a_scale, (B - b_zero_point) * b_scale) (+ bias), T3 float or float16.

One node per case (test_matmulintegertofloat_<what>): the catalogue (entries.py: the four type pairs with zero
points drawn / at their ends / absent, one-element forms, per-column b_scale and b_zero_point, per-k a_scale and
a_zero_point (the text's "columns of input A"), bias, float16 T3, batched and broadcast shapes, K = 0, 1, odd,
int16-pair extremes, int32's ends with the probe beyond), each with data sets drawn to kill its group's fault
models (config.py: random, ends, far, pairs) and, for a float32 T3 with a per-tensor A side, its swamp companion;
the vector-tail axis (axes.py); negatives (negatives.py); random configurations (hunt.py; the only cases --seed
changes). Expected values come from generator.reference.matmul_integer_to_float only; outputs are compared within
the dot-product bound of each data set (compare mode "dot", generator/dot_bound.py), the roundings allowed stated
per case (config.REASON). The explicit-defaults, NaN-payload and opset-boundary axes have nothing to act on (no
attribute, no decisive NaN, one version).

The package's core.py is shared with generator/families/dynamic_quantize_matmul/.
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
from generator.families.matmul_integer_to_float.axes import tail_cases
from generator.families.matmul_integer_to_float.config import (FAMILY, OPSET, REASON, Config, cases, dataset_cases,
                                                               datasets, model)
from generator.families.matmul_integer_to_float.entries import CATALOGUE, fixed
from generator.families.matmul_integer_to_float.hunt import hunt, random_configs, rebuild
from generator.families.matmul_integer_to_float.negatives import negative_cases

MIN_OPSET = OPSET
PROFILES = {"quick": {"random": 0}, "default": {"random": 4}, "exhaustive": {"random": 24}}
GRID = ("a_zp", "b_scale", ("t3",))  # the report's grid: A's zero-point form x b_scale's form, one table per T3

__all__ = ["CATALOGUE", "Config", "FAMILY", "GRID", "MIN_OPSET", "OPSET", "PROFILES", "REASON", "cases",
           "catalogue_cases", "dataset_cases", "datasets", "hunt", "model", "negative_cases", "random_configs",
           "rebuild", "tail_cases", "work"]


def catalogue_cases(seed: int = 0) -> Iterator[Case]:
    for name in CATALOGUE:
        cfg, sets = fixed(name)
        if sets is None:
            yield from cases(cfg, seed, ("edge",))
        else:
            yield from dataset_cases(cfg, sets, seed, ["edge"])


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue (data drawn with base seed 0), the negatives, the vector tail, the random
    configurations."""
    if max_opset < OPSET:
        return []

    def randoms() -> Iterator[Case]:
        for cfg in random_configs(PROFILES[profile]["random"], seed):
            yield from cases(cfg, seed, ("random",))

    return [catalogue_cases, lambda: negative_cases(0), tail_cases, randoms]
