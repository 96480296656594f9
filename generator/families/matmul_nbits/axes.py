"""The vector-tail axis of MatMulNBits (generator/axes.py): one model whose A has a symbolic row count, data sets of
1 .. 65 rows (tail_lengths(short=True)), every row zero but the last, which is random: a kernel that tiles rows and
drops or garbles its partial last tile fails the last row, and a zero row must give exactly 0 (a zero bound)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import axes, sampling
from generator.case import Case
from generator.families.matmul_nbits.config import Config, draw, meta, model
from generator.family import split
from generator.reference import matmul_nbits as ref

TAIL = Config("vector_tail", K=32, N=4, zero_points="packed", a_shape=(65,))
LENGTHS = axes.tail_lengths(short=True, limit=65)


def tail_cases(seed: int = 0) -> Iterator[Case]:
    s = sampling.Stream(sampling.case_seed(seed, TAIL.what))
    full = draw(TAIL, s, "random")
    last = full[0][-1:]
    sets = []
    for n in LENGTHS:
        a = np.zeros((n, TAIL.K), dtype=last.dtype)
        a[-1:] = last
        sets.append([a] + full[1:])
    outcomes = [ref.matmul_nbits([dict(zip(TAIL.slots, d)).get(k) for k in ref.INPUTS], TAIL.attrs) for d in sets]
    shapes = [("M", TAIL.K)] + [np.shape(x) for x in full[1:]]
    cfg = replace(TAIL, a_shape=("M",))
    yield from split(f"test_matmulnbits_{TAIL.what}", sets, outcomes, lambda d: model(cfg, shapes),
                     meta(cfg, seed, ["edge", "vector_tail"]))
