"""The axes of generation over QLinearConv (generator/axes.py): the opset boundaries and the vector tails."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

import onnx

from generator import axes, dtypes, sampling
from generator.case import Case, node_model
from generator.family import split
from generator.families.qlinear_conv.conv import CLAUSE, COMPARE, FAMILY, OPSET, conv_reading, dataset_cases
from generator.families.qlinear_conv.data import draw_dataset
from generator.families.qlinear_conv.entries import CATALOGUE, U8
from generator.reference import qlinear_conv as ref


# ---------------------------------------------------------------------------------------------
# the opset-boundary axis: QLinearConv has one version (10); a model of opset 11 and one of the newest opset
# still run it (a runtime that keys its kernels by opset may miss them)
# ---------------------------------------------------------------------------------------------
def boundary_opsets(max_opset: int) -> list[int]:
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    return sorted({o for o in axes.boundary_opsets([OPSET], OPSET, newest) if o > OPSET} | {newest} - {OPSET})


def boundary_cases(max_opset: int, n_datasets: int) -> Iterator[Case]:
    """pads_symmetric at each boundary opset: test_qlinearconv_pads_symmetric_opset<n> (the same data sets)."""
    base = replace(CATALOGUE["pads_symmetric"](), what="pads_symmetric")
    for opset in boundary_opsets(max_opset):
        conv = replace(base, opset=opset)
        s = sampling.case_seed(0, base.name)
        stream = sampling.Stream(s)
        sets = [draw_dataset(conv, stream, i) for i in range(n_datasets)]
        yield from dataset_cases(replace(conv, what=f"pads_symmetric_opset{opset}"), sets, s,
                                 ["edge", "opset_boundary"])


# ---------------------------------------------------------------------------------------------
# the vector-tail axis (generator/axes.py): 1-D convolutions of symbolic width and output channels, the decisive
# accumulation at the last output position of every channel
# ---------------------------------------------------------------------------------------------
# output widths around the 4-, 8- and 16-lane loops (every remainder of 8 up to 17, past 32 and 64), channel counts
# around 8 and 16
TAIL_WIDTHS = tuple(range(1, 18)) + (31, 32, 33, 63, 64, 65)
TAIL_CHANNELS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17)
TAIL_SATURATE_WIDTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17)
TAIL_C, TAIL_XS, TAIL_WS = 2, 2.0**-7, 2.0**-8


def tail_inputs(width: int, m: int, saturate: bool) -> list[np.ndarray]:
    """uint8 x (1, 2, width), w (m, 2, 3), zero points 0, y_scale 2 x_scale w_scale (c = 1/2): every accumulator 0
    but the last output position's, acc = 5 (the tie 2.5: even 2, away 3) or 255 * 255 * 2 (saturates: 65025
    unsaturated wraps to 1); only w's centre tap of input channel 0 is nonzero, so no other position reads it."""
    x = np.zeros((1, TAIL_C, width), dtype=np.uint8)
    w = np.zeros((m, TAIL_C, 3), dtype=np.uint8)
    x[0, 0, -1] = 255 if saturate else 5
    w[:, 0, 1] = 255 if saturate else 1
    if saturate:
        x[0, 1, -1], w[:, 1, 1] = 255, 255
    f32 = np.float32
    return [x, f32(TAIL_XS).reshape(()), np.array(0, np.uint8), w, f32(TAIL_WS).reshape(()), np.array(0, np.uint8),
            f32(TAIL_XS * TAIL_WS * 2).reshape(()), np.array(0, np.uint8)]


def tail_datasets() -> list[list[np.ndarray]]:
    return ([tail_inputs(n, 3, False) for n in TAIL_WIDTHS] + [tail_inputs(9, m, False) for m in TAIL_CHANNELS]
            + [tail_inputs(n, 3, True) for n in TAIL_SATURATE_WIDTHS])


def tail_cases() -> Iterator[Case]:
    """test_qlinearconv_vector_tail: one model, x (1, 2, w), w (m, 2, 3), y (1, m, w), pads [1, 1]; a data set per
    width in TAIL_WIDTHS (m 3) and per channel count in TAIL_CHANNELS (width 9) with a tie last, and per width in
    TAIL_SATURATE_WIDTHS with a saturating accumulation last."""
    attrs = {"pads": [1, 1]}
    u8, f32 = dtypes.get("uint8"), dtypes.get("float")
    ins = [("x", u8, (1, TAIL_C, "w")), ("x_scale", f32, ()), ("x_zero_point", u8, ()), ("w", u8, ("m", TAIL_C, 3)),
           ("w_scale", f32, ()), ("w_zero_point", u8, ()), ("y_scale", f32, ()), ("y_zero_point", u8, ())]
    mdl = node_model(FAMILY.op, ins, [("y", u8, (1, "m", "w"))], attrs, OPSET)
    sets = tail_datasets()
    params = {"x_shape": [1, TAIL_C, "w"], "w_shape": ["m", TAIL_C, 3], "x_type": U8, "w_type": U8, "y_type": U8,
              "bias": "absent", "per_channel": "no", "scales": "tail", "pads": [1, 1],
              "widths": list(TAIL_WIDTHS), "channels": list(TAIL_CHANNELS),
              "saturate_widths": list(TAIL_SATURATE_WIDTHS)}
    meta = FAMILY.meta(opset=OPSET, clause=CLAUSE, compare=COMPARE, flags=["edge", "vector_tail"], seed=0,
                       params=params, reading=conv_reading(attrs))
    outcomes = [ref.qlinear_conv(*inputs, pads=[1, 1]) for inputs in sets]
    yield from split(f"{FAMILY.prefix}_vector_tail", sets, outcomes, lambda _: mdl, meta)
