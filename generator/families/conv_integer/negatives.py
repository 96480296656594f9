"""ConvInteger models the text rules out (negative/): the backend must refuse them, when preparing or when running
(before any output: the text says what is invalid, not when). Each has one data set of the declared shapes, for
backends that only look at run time."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.conv_integer.spec import CI, CLAUSE, FAMILY, I8, OPSET, U8, model


def _data(shapes: list, types: list, s: sampling.Stream) -> list[np.ndarray]:
    return [s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype) for shape, t in zip(shapes, types)
            if shape is not None]


def negative_case(ci: CI, shapes: list, types: list, why: str, seed: int) -> Case:
    """ci's model declared with shapes / types (x, w, x_zero_point, w_zero_point; None where absent), one data set
    of them; why: the rule it breaks, citing the text."""
    s = sampling.case_seed(seed, ci.name)
    inputs = _data(shapes, types, sampling.Stream(s))
    return FAMILY.negative(ci.name, model(ci, shapes, types, y=None), [inputs], phase="run", opset=OPSET,
                           clause=CLAUSE, seed=s, flags=["negative"], params=ci.params(), invalid=why)


def negative_cases(seed: int) -> Iterator[Case]:
    """[T1, T2: x / x_zero_point and w / w_zero_point share a type, int8 or uint8; x_zero_point a scalar;
    w_zero_point a scalar or M elements; X.shape[1] == W.shape[1] * group; auto_pad / pads]"""
    u8, i8, i16 = dtypes.get(U8), dtypes.get(I8), dtypes.get("int16")
    base = CI(x_shape=(1, 4, 5, 5), kernel=(3, 3), m=4, attrs={"pads": [1, 1, 1, 1]})
    shapes = [base.x_shape, base.w_shape, (), ()]

    def neg(what, why, shapes=shapes, decl=(u8, u8, u8, u8), **changes):
        ci = CI(**dict(dict(x_shape=base.x_shape, kernel=base.kernel, m=base.m, attrs=base.attrs), **changes),
                what=what)
        return negative_case(ci, list(shapes), list(decl), why, seed)

    yield neg("negative_x_zero_point_type", "x_zero_point is int8, x uint8: both are T1 [x_zero_point]",
              decl=(u8, u8, i8, u8))
    yield neg("negative_w_zero_point_type", "w_zero_point is uint8, w int8: both are T2 [w_zero_point]",
              decl=(u8, i8, u8, u8), types=(U8, I8))
    yield neg("negative_x_int16", "x is int16: T1 is int8 or uint8 [type constraints]",
              shapes=[base.x_shape, base.w_shape, None, None], decl=(i16, u8, None, None), x_zp="absent",
              w_zp="absent")
    yield neg("negative_x_zero_point_per_channel",
              "x_zero_point has 4 elements: it is a scalar, per tensor [x_zero_point]",
              shapes=[base.x_shape, base.w_shape, (4,), ()], x_zp="one")
    yield neg("negative_w_zero_point_length",
              "w_zero_point has 3 elements, w has M = 4 output channels: 1 or M [w_zero_point]",
              shapes=[base.x_shape, base.w_shape, (), (3,)], w_zp="channel")
    yield neg("negative_w_zero_point_2d", "w_zero_point has shape [4, 1]: a scalar or a 1-D tensor [w_zero_point]",
              shapes=[base.x_shape, base.w_shape, (), (4, 1)], w_zp="channel")
    yield neg("negative_channels_mismatch",
              "x has 4 channels, w 3 with group 1: X.shape[1] == W.shape[1] * group [w]",
              shapes=[base.x_shape, (4, 3, 3, 3), (), ()])
    # 3 input channels cannot be split into 2 groups: w has C / group = 1 channel, and 1 * 2 != 3
    yield neg("negative_group_channels",
              "x has 3 channels, w 1 per group with group 2: X.shape[1] == W.shape[1] * group [w, group]",
              shapes=[(1, 3, 5, 5), (4, 1, 3, 3), (), ()], attrs={"group": 2, "pads": [1, 1, 1, 1]},
              x_shape=(1, 2, 5, 5))
    yield neg("negative_group_output_channels",
              "M = 3 output channels cannot be divided into group 2 [group]",
              shapes=[(1, 4, 5, 5), (3, 2, 3, 3), (), ()], attrs={"group": 2, "pads": [1, 1, 1, 1]}, m=2)
    yield neg("negative_rank_mismatch", "x is 4-D, w 3-D: both N x C x D1 .. Dn [x, w]",
              shapes=[base.x_shape, (4, 4, 3), (), ()])
    yield neg("negative_kernel_shape", "kernel_shape [2, 2] differs from w's spatial shape [3, 3] [kernel_shape]",
              attrs={"pads": [1, 1, 1, 1], "kernel_shape": [2, 2]})
    yield neg("negative_pads_with_auto_pad",
              "pads together with auto_pad SAME_UPPER: \"This attribute cannot be used simultaneously with auto_pad\" "
              "[pads]", attrs={"auto_pad": "SAME_UPPER", "pads": [1, 1, 1, 1]})
