"""QLinearConv models the spec rules out (negative/): the backend must refuse them. The builders take a valid
configuration and a data set of it, so that the hunt (hunt.py) builds its negative examples the same way."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

from generator import sampling
from generator.case import Case
from generator.families.qlinear_conv.conv import CLAUSE, FAMILY, OPSET, Conv, model
from generator.families.qlinear_conv.data import draw_dataset


def negative_cases(seed: int) -> Iterator[Case]:
    """Models the spec rules out [QLinearConv-10: w, w_scale, w_zero_point, B, group]. The declared shapes
    make them invalid before any data; the one data set has those shapes, for backends that only look
    at run time."""
    base = Conv("negative", m=4, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale", bias="random")
    for what in BAD_LENGTHS:
        conv = replace(base, what=what)
        inputs = draw_dataset(conv, sampling.Stream(sampling.case_seed(seed, conv.name)), 0)
        yield bad_length_case(conv, inputs, seed)
    # "pads cannot be used simultaneously with auto_pad" [auto_pad]
    conv = Conv("negative_pads_with_auto_pad", attrs={"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]})
    valid = replace(conv, attrs={"auto_pad": "SAME_UPPER"})
    inputs = draw_dataset(valid, sampling.Stream(sampling.case_seed(seed, conv.name)), 0)
    yield pads_with_auto_pad_case(valid, inputs, seed, conv.what)
    # 3 input channels cannot be split into 2 groups: w has C / group = 1 channel, and 1 * 2 != 3
    conv = Conv("negative_group_channels", (1, 3, 7, 7), m=4, attrs={"group": 2, "pads": [1, 1, 1, 1]})
    s = sampling.Stream(sampling.case_seed(seed, conv.name))
    inputs = draw_dataset(replace(conv, x_shape=(1, 2, 7, 7)), s, 0)
    inputs[0] = s.integers(0, 255, conv.x_shape, dtype=np.uint8)
    yield group_channels_case(conv, inputs, seed)


BAD_LENGTHS = ("negative_w_scale_length", "negative_w_zero_point_length", "negative_bias_length")


def bad_length_case(conv: Conv, inputs: list[np.ndarray], seed: int) -> Case:
    """conv.what one of BAD_LENGTHS; conv per channel with a bias, inputs a data set of it: the one input
    given a length the spec rules out (w_scale / w_zero_point neither 1 nor M elements, B not M)."""
    m = conv.m
    n_ws, n_wz = (m - 1 if m > 2 else m + 1), (2 if m != 2 else 3)
    j, n, why = {
        "negative_w_scale_length": (4, n_ws, f"w_scale has {n_ws} elements: 1 or M = {m} [w_scale]"),
        "negative_w_zero_point_length": (5, n_wz, f"w_zero_point has {n_wz} elements: 1 or M = {m} [w_zero_point]"),
        "negative_bias_length": (8, m + 1, f"B has {m + 1} elements: it must have M = {m} [B]"),
    }[conv.what]
    inputs = list(inputs)
    inputs[j] = np.resize(inputs[j], (n,))
    return _negative(conv, inputs, [np.shape(v) for v in inputs], why, seed)


def pads_with_auto_pad_case(valid: Conv, inputs: list[np.ndarray], seed: int,
                            what: str = "negative_pads_with_auto_pad") -> Case:
    """valid: a conv with auto_pad SAME_UPPER / SAME_LOWER and no pads, inputs a data set of it: the model
    given pads too [auto_pad: "pads cannot be used simultaneously"]."""
    mode, nd = valid.attrs["auto_pad"], len(valid.kernel)
    conv = replace(valid, what=what, attrs=dict(valid.attrs, pads=[1] * (2 * nd)))
    return _negative(conv, inputs, [np.shape(v) for v in inputs],
                     f"pads together with auto_pad {mode}: they cannot be used together [pads]", seed, valid)


def group_channels_case(conv: Conv, inputs: list[np.ndarray], seed: int) -> Case:
    """conv: group > 1 and x channels no multiple of it (w has x channels // group per group), inputs a data
    set of it (x with those channels)."""
    c, g = conv.x_shape[1], conv.group
    return _negative(conv, inputs, [np.shape(v) for v in inputs],
                     f"x has {c} channels, w {c // g} per group with group {g}: X.shape[1] == W.shape[1] * group "
                     "[w, group]", seed)


def _negative(conv: Conv, inputs: list[np.ndarray], shapes: list[tuple], why: str, seed: int,
              geometry_of: Conv | None = None) -> Case:
    # the spec says what is invalid, not when it must be refused: a refusal when preparing or when running
    # (before any output) both count
    return FAMILY.negative(conv.name, model(conv, shapes, geometry_of), [inputs], phase="run", opset=OPSET,
                           clause=CLAUSE, seed=sampling.case_seed(seed, conv.name), flags=["negative"],
                           params=conv.params(), invalid=why)
