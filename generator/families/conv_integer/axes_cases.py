"""The axes of generation over ConvInteger (generator/axes.py): the opset boundaries and the vector tail."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np
import onnx

from generator import axes, sampling
from generator.case import Case
from generator.families.conv_integer.data import draw_dataset
from generator.families.conv_integer.entries import fixed
from generator.families.conv_integer.spec import CI, I8, OPSET, U8, dataset_cases, feed


# ---------------------------------------------------------------------------------------------
# the opset-boundary axis: ConvInteger has one version (10); a model of opset 11 and one of the newest still run it
# ---------------------------------------------------------------------------------------------
def boundary_opsets(max_opset: int) -> list[int]:
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int, n_datasets: int) -> Iterator[Case]:
    """x_uint8_w_int8_per_channel's configuration at each boundary opset: test_convinteger_opset<n> (the same data
    sets)."""
    base, _ = fixed("x_uint8_w_int8_per_channel")
    base = replace(base, what="x_uint8_w_int8_per_channel")
    s = sampling.case_seed(0, base.name)
    for opset in boundary_opsets(max_opset):
        stream = sampling.Stream(s)
        sets = [draw_dataset(base, stream, i) for i in range(n_datasets)]
        yield from dataset_cases(replace(base, what=f"opset{opset}", opset=opset), sets, s, ["edge", "opset_boundary"])


# ---------------------------------------------------------------------------------------------
# the vector-tail axis: a 1-D convolution with kernel 1 over a symbolic channel count C, so each dot product's K is
# C; every channel's difference x - x_zero_point is 0 but the last one's, so a K loop that drops its remainder
# (conv_integer.k_tail<W>_dropped) loses the one product that counts
# ---------------------------------------------------------------------------------------------
TAIL_M, TAIL_WIDTH = 3, 5


def tail_dataset(c: int) -> list[np.ndarray]:
    """x (1, c, 5) int8 at x_zero_point -3 but the last channel's (100, -128, 127, 0, 5), w (3, c, 1) uint8 drawn
    around w_zero_point 7 (never equal to it in the last channel)."""
    x = np.full((1, c, TAIL_WIDTH), -3, np.int8)
    x[0, -1] = [100, -128, 127, 0, 5]
    s = sampling.Stream(sampling.case_seed(0, f"convinteger_vector_tail_{c}"))
    w = s.integers(0, 255, (TAIL_M, c, 1), dtype=np.uint8)
    w[:, -1, 0] = [250, 0, 8]
    ci = tail_ci()
    return feed(ci, x, w, np.array(-3, np.int8), np.array(7, np.uint8))


def tail_ci() -> CI:
    return CI("vector_tail", (1, 17, TAIL_WIDTH), (1,), TAIL_M, {}, (I8, U8), "tensor", "tensor", data="tail",
              dims={"x": (1, "C", TAIL_WIDTH), "w": (TAIL_M, "C", 1), "y": (1, TAIL_M, TAIL_WIDTH)})


def tail_cases() -> Iterator[Case]:
    """test_convinteger_vector_tail: one model of symbolic C, a data set per channel count of axes.tail_lengths
    (short)."""
    ci = tail_ci()
    yield from dataset_cases(ci, [tail_dataset(c) for c in axes.tail_lengths(short=True)], 0,
                             ["edge", "vector_tail"], lengths=list(axes.tail_lengths(short=True)))

