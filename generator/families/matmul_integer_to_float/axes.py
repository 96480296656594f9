"""The axes of generation for MatMulIntegerToFloat (generator/axes.py):
  vector tail      one model of symbolic K and N: data sets for K around vector widths whose only nonzero product
                   is the last (a K loop that drops its remainder loses it), and for N around widths with a
                   per-column b_zero_point / b_scale whose last column alone differs (a column tail read wrong)
  explicit defaults, NaN payloads: nothing to act on (no attribute; the float inputs are scales and bias, no NaN
                   is decisive); opset boundaries: com.microsoft 1 is the only version.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import axes
from generator.case import Case
from generator.families.matmul_integer_to_float.config import U8, I8, Config, dataset_cases

TAIL_KS = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33)
TAIL_NS = (1, 5, 9, 17)
TAIL = Config("vector_tail", a_shape=(2, 5), b_shape=(5, 3), a_type=U8, b_type=I8, b_zp="column", b_scale="column",
              dims={"A": (2, "K"), "B": ("K", "N"), "b_zero_point": ("N",), "b_scale": ("N",)})


def tail_cases(seed: int = 0) -> Iterator[Case]:
    """test_matmulintegertofloat_vector_tail (module docstring)."""
    sets = []
    for k in TAIL_KS:
        a = np.stack([axes.with_tail(np.full(k, 7, np.uint8), [200], k)] * 2)
        b = np.zeros((k, 3), np.int8)
        b[-1] = [100, -100, 55]
        sets.append([a, b, np.float32(2.0 ** -6), np.full(3, 0.0078125 * (1 + 3 * 2.0 ** -13), np.float32),
                     np.array(7, np.uint8), np.zeros(3, np.int8)])
    for n in TAIL_NS:
        a = np.array([[9, 8, 7, 6, 5], [1, 2, 3, 4, 255]], np.uint8)
        b = np.full((5, n), 3, np.int8)
        zb = axes.with_tail(np.full(n, 3, np.int8), [-100], n)
        sb = axes.with_tail(np.full(n, 2.0 ** -7, np.float32), [np.float32(2.0 ** -5 * 1.375)], n)
        sets.append([a, b, np.float32(2.0 ** -6), sb, np.array(0, np.uint8), zb])
    yield from dataset_cases(TAIL, sets, seed, ["edge", "vector_tail"])
