"""The DynamicQuantizeMatMul family (com.microsoft DynamicQuantizeMatMul-1, onnxruntime's contrib schema): A
(float) quantized as DynamicQuantizeLinear does [READING_A_QUANT], then MatMulIntegerToFloat's product with B
(int8 / uint8), b_scale, b_zero_point and bias.

One node per case (test_dynamicquantizematmul_<what>): the catalogue (entries.py: B int8 / uint8 with its zero
point present, absent, one element or per column, per-column b_scale, bias, batched and broadcast shapes, K 1 and
odd, int16-pair extremes, A all positive / all negative / of a wide range; A all zeros, NaN in A and K = 0 in the
probes), each with data sets drawn to kill its group's fault models (config.py: A on the quantization grid of
both signs, positive, negative, 3/4 of a step off, pairs, wide, random); the vector-tail axis (axes.py);
negatives (negatives.py); random configurations (hunt.py). Expected values come from
generator.reference.dynamic_quantize_matmul only; outputs are compared within the dot-product bound of each data
set (compare mode "dot"), its allowance for A's quantization stated (config.REASON).

Shares its model, compare spec and B-side draws with MatMulIntegerToFloat (generator/families/
matmul_integer_to_float/core.py).
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
from generator.families.dynamic_quantize_matmul.axes import tail_cases
from generator.families.dynamic_quantize_matmul.config import (FAMILY, OPSET, REASON, Config, cases, dataset_cases,
                                                               datasets, model)
from generator.families.dynamic_quantize_matmul.entries import CATALOGUE, fixed
from generator.families.dynamic_quantize_matmul.hunt import hunt, random_configs, rebuild
from generator.families.dynamic_quantize_matmul.negatives import negative_cases

MIN_OPSET = OPSET
PROFILES = {"quick": {"random": 0}, "default": {"random": 4}, "exhaustive": {"random": 24}}
GRID = ("b_zp", "b_scale", ("b_type",))

__all__ = ["CATALOGUE", "Config", "FAMILY", "GRID", "MIN_OPSET", "OPSET", "PROFILES", "REASON", "cases",
           "catalogue_cases", "dataset_cases", "datasets", "hunt", "model", "negative_cases", "random_configs",
           "rebuild", "tail_cases", "work"]


def catalogue_cases(seed: int = 0) -> Iterator[Case]:
    for name in CATALOGUE:
        yield from cases(fixed(name), seed, ("edge",))


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue (base seed 0), the negatives, the vector tail, the random configurations."""
    if max_opset < OPSET:
        return []

    def randoms() -> Iterator[Case]:
        for cfg in random_configs(PROFILES[profile]["random"], seed):
            yield from cases(cfg, seed, ("random",))

    return [catalogue_cases, lambda: negative_cases(0), tail_cases, randoms]
