"""The MatMulNBits family (com.microsoft MatMulNBits-1, onnxruntime's contrib schema): A @ W^T with W
block-quantized to 2, 4 or 8 bits along K.

One node per case (test_matmulnbits_<what>): CATALOGUE's configurations (entries.py: bits, block_size from 16
to 1024, K a multiple of block_size or not, the zero points absent / packed / typed, g_idx, bias, A's type and
rank, accuracy_level) with data sets drawn to kill the fault models (config.py), the vector-tail axis (axes.py:
A's rows 1 .. 65 in one model), and negatives (negatives.py).
Expected values come from generator.reference.matmul_nbits only; the outputs are compared within the
dot-product bound of each data set (compare mode "dot", generator/dot_bound.py), never a blanket tolerance.

The model imports com.microsoft 1 and ai.onnx OPSET (no ai.onnx node). Backends without the com.microsoft
domain refuse it (unsupported).
"""

from __future__ import annotations

from typing import Callable, Iterator

from generator.case import Case
from generator.families.matmul_nbits.axes import tail_cases
from generator.families.matmul_nbits.config import CLAUSE, FAMILY, OPSET, Config, cases, datasets, model
from generator.families.matmul_nbits.entries import CATALOGUE, configs
from generator.families.matmul_nbits.hunt import hunt, random_configs, rebuild
from generator.families.matmul_nbits.negatives import negative_cases

MIN_OPSET = OPSET
PROFILES = {"quick": {"random": 0}, "default": {"random": 2}, "exhaustive": {"random": 12}}
GRID = ("bits", "zero_points", ("t1",))  # the report's grid: bits x zero-point form, one table per A type

__all__ = ["CATALOGUE", "CLAUSE", "Config", "FAMILY", "GRID", "MIN_OPSET", "OPSET", "PROFILES", "cases", "configs",
           "datasets", "hunt", "model", "negative_cases", "rebuild", "tail_cases", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue (data drawn with base seed 0), the negatives, the random configurations
    (the only cases --seed changes)."""
    if max_opset < OPSET:
        return []

    def fixed() -> Iterator[Case]:
        for cfg in configs():
            yield from cases(cfg, 0, ("edge",))

    def randoms() -> Iterator[Case]:
        for cfg in random_configs(PROFILES[profile]["random"], seed):
            yield from cases(cfg, seed, ("random",))

    return [fixed, lambda: negative_cases(0), tail_cases, randoms]
