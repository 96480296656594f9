"""The axes of generation over QGemm (generator/axes.py): explicit defaults and the vector tail; the seeded random
configurations. The opset-boundary axis does not apply: com.microsoft QGemm has one version (1)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import axes, sampling
from generator.case import Case
from generator.families.qgemm.config import Gemm, dataset_cases, draw_dataset, gemm_cases, model
from generator.reference.qgemm import DEFAULTS, INT_TYPES

_TAIL = Gemm("vector_tail", m=2, k=3, n=1, types=("uint8", "int8", "uint8"), c_shape=("N",), alpha=0.5)


def explicit_default_cases(n: int) -> Iterator[Case]:
    """The explicit-defaults axis: alpha = 1.0, transA = 0, transB = 0 written (the schema's defaults, DEFAULTS),
    quantized and float, with C and per-column b: test_qgemm_explicit_defaults_<output>."""
    for y in ("uint8", "float"):
        g = Gemm(f"explicit_defaults_{y}", types=("uint8", "int8", y), c_shape=(5,), b_scale_form="column",
                 b_zp_form="column", explicit_defaults=True)
        assert set(g.attrs) == set(DEFAULTS)
        yield from gemm_cases(g, n, 0, ["edge", "explicit_defaults"])


def tail_sets() -> list[list[np.ndarray]]:
    """One data set per tail length N (axes.tail_lengths(short=True)): A [2, 3], B [3, N] and C [N]; every column
    but the last has acc + C = 0, the last acc + C = 2 and 10 (rows 0, 1), with multiplier alpha * a_scale * b_scale /
    y_scale = 1/2 * 2**-7 * 2**-8 / 2**-14 = 1/4: the ties 0.5 and 2.5, which a scalar remainder rounding half away
    from zero takes to 1 / 3 (the reference: 0 / 2)."""
    sets = []
    for n in axes.tail_lengths(short=True):
        a = np.array([[1, 0, 0], [5, 0, 0]], np.uint8)  # zero points 0: acc[:, n] = b[0, n] * (1, 5)
        b = np.zeros((3, n), np.int8)
        b[0, -1] = 2
        c = np.zeros(n, np.int32)
        sets.append([np.asarray(v) for v in (a, np.float32(2.0**-7), np.uint8(0), b, np.float32(2.0**-8), np.int8(0),
                                             c, np.float32(2.0**-14), np.uint8(128))])
    return sets


def tail_cases() -> Iterator[Case]:
    """The vector-tail axis: one model of symbolic N (B [3, N], C [N], Y [2, N]), one data set per tail length."""
    g = _TAIL
    m = model(g, shapes={"B": (3, "N"), "C": ("N",)}, y_shape=(2, "N"))
    params = dict(g.params(), N="N", c_shape=["N"])
    sets = tail_sets()
    for case in dataset_cases(replace(g, c_shape=(1,)), sets, 0, ["edge", "vector_tail"], model_of=lambda _: m):
        yield replace(case, meta=dict(case.meta, params=params))


def random_configurations(count: int, seed: int) -> list[Gemm]:
    """count configurations from seeded draws: sizes, transposes, alpha, types, per-column forms, C's shape."""
    s = sampling.Stream(sampling.case_seed(seed, "test_qgemm_random"))
    out = []
    for i in range(count):
        m, k, n = s.integers(1, 6), s.integers(1, 40), s.integers(1, 6)
        c = s.choice((None, "mn", "n", "m1", "scalar"))
        c_shape = {None: None, "mn": (m, n), "n": (n,), "m1": (m, 1), "scalar": ()}[c]
        alpha = s.choice((None, 1.0, 0.5, 2.0, -1.0, 0.3))
        out.append(Gemm(f"config_{i:03d}_random", m, k, n, s.choice((None, 0, 1)), s.choice((None, 0, 1)),
                        None if alpha is None else float(alpha),
                        (s.choice(INT_TYPES), s.choice(INT_TYPES), s.choice(INT_TYPES + ("float",))),
                        s.choice(("tensor", "column", "one")), s.choice(("tensor", "column")), c_shape))
    return out


def random_cases(count: int, seed: int, n: int) -> Iterator[Case]:
    for g in random_configurations(count, seed):
        yield from gemm_cases(g, n, seed, ["random"])


__all__ = ["draw_dataset", "explicit_default_cases", "random_cases", "random_configurations", "tail_cases",
           "tail_sets"]
