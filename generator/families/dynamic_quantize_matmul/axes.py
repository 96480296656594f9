"""The axes of generation for DynamicQuantizeMatMul (generator/axes.py):
  vector tail      one model of symbolic K and N: data sets for K around vector widths whose only nonzero
                   element of A is the last of each row (on the quantization grid: q = 255, the scale 2**-4 exactly:
                   a K loop that drops its remainder gives 0), and for N around widths with a per-column b_scale
                   and b_zero_point whose last column alone differs
  explicit defaults, NaN payloads, opset boundaries: no attribute; A's NaN makes the whole quantization undefined
                   (the a_nan probe), whatever its payload; com.microsoft 1 is the only version.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import axes
from generator.case import Case
from generator.families.dynamic_quantize_matmul.config import STEP, Config, dataset_cases

TAIL_KS = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33)
TAIL_NS = (1, 5, 9, 17)
TAIL = Config("vector_tail", a_shape=(2, 5), b_shape=(5, 3), b_zp="column", b_scale="column",
              dims={"A": (2, "K"), "B": ("K", "N"), "b_zero_point": ("N",), "b_scale": ("N",)})


def tail_cases(seed: int = 0) -> Iterator[Case]:
    """test_dynamicquantizematmul_vector_tail (module docstring)."""
    sets = []
    for k in TAIL_KS:
        a = np.stack([axes.with_tail(np.zeros(k, np.float32), [np.float32(255 * STEP)], k)] * 2)
        b = np.full((k, 3), 5, np.int8)
        b[-1] = [100, -100, 55]
        sets.append([a, b, np.full(3, 0.0078125 * (1 + 3 * 2.0 ** -13), np.float32), np.full(3, 5, np.int8)])
    for n in TAIL_NS:
        a = ((np.arange(10).reshape(2, 5) * 25 + np.array([[0], [5]])) * STEP).astype(np.float32)
        b = np.full((5, n), 3, np.int8)
        zb = axes.with_tail(np.full(n, 3, np.int8), [-100], n)
        sb = axes.with_tail(np.full(n, 2.0 ** -7, np.float32), [np.float32(2.0 ** -5 * 1.375)], n)
        sets.append([a, b, sb, zb])
    yield from dataset_cases(TAIL, sets, seed, ["edge", "vector_tail"])
