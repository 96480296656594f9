"""The ConvInteger catalogue (spec.CATALOGUE; spec.PROBES: data whose exact sums leave int32): one function per fixed
case, each returning its CI (data sets drawn as CI.data says, data.py) or (CI, data sets) for data written out here;
the case is test_convinteger_<name>."""

from __future__ import annotations

import numpy as np

from generator import axes
from generator.families.conv_integer.spec import CATALOGUE, CI, I8, OPSET, PROBES, U8, feed
from generator.reference.requantize import INT32_MAX, INT32_MIN


def fixed(name: str, entries=CATALOGUE) -> tuple[CI, list | None]:
    """An entry's CI and its written-out data sets (None: drawn)."""
    got = entries[name]()
    return got if isinstance(got, tuple) else (got, None)


def _example_x() -> np.ndarray:
    return np.arange(2, 11, dtype=np.uint8).reshape(1, 1, 3, 3)


@CATALOGUE
def example_without_padding():
    """The operator's example (onnx/backend/test/case/node/convinteger.py, "without_padding"): x 2 .. 10 (3 x 3),
    x_zero_point 1, w ones 2 x 2, no w_zero_point: y [[12, 16], [24, 28]]."""
    ci = CI(x_shape=(1, 1, 3, 3), kernel=(2, 2), m=1, w_zp="absent", data="example")
    return ci, [feed(ci, _example_x(), np.ones((1, 1, 2, 2), np.uint8), np.array(1, np.uint8))]


@CATALOGUE
def example_with_padding():
    """The operator's example "with_padding": pads 1, w_zero_point [0, 1] per channel (READING_PADDING rests on it:
    y[0, 0, 0, 0] = 1)."""
    ci = CI(x_shape=(1, 1, 3, 3), kernel=(2, 2), m=2, attrs={"pads": [1, 1, 1, 1]}, w_zp="channel", data="example")
    return ci, [feed(ci, _example_x(), np.ones((2, 1, 2, 2), np.uint8), np.array(1, np.uint8),
                     np.array([0, 1], np.uint8))]


def _type_pairs() -> None:
    """Every x / w type pair T1 x T2 allow: zero points at both ends of their types (the corners in turn), padded;
    without zero points; per-channel; at the far ends (products of 255 * 255 where both reach it)."""
    for x in (U8, I8):
        for w in (U8, I8):
            t = (x, w)
            CATALOGUE.add(f"x_{x}_w_{w}", lambda t=t: CI(attrs={"pads": [1, 1, 1, 1]}, types=t, data="ends"))
            CATALOGUE.add(f"x_{x}_w_{w}_no_zero_points",
                          lambda t=t: CI(attrs={"pads": [1, 2, 0, 1]}, types=t, x_zp="absent", w_zp="absent"))
            CATALOGUE.add(f"x_{x}_w_{w}_per_channel",
                          lambda t=t: CI(m=5, attrs={"pads": [1, 1, 1, 1]}, types=t, w_zp="channel"))
            CATALOGUE.add(f"x_{x}_w_{w}_far", lambda t=t: CI(x_shape=(1, 4, 5, 5), attrs={"pads": [1, 1, 1, 1]},
                                                              types=t, data="far"))
            CATALOGUE.add(f"x_{x}_w_{w}_int16_pairs",
                          lambda t=t: CI(x_shape=(1, 8, 4, 4), kernel=(1, 1), m=3, types=t, data="pairs"))


_type_pairs()


@CATALOGUE
def x_zero_point_only():
    return CI(types=(I8, U8), attrs={"pads": [1, 1, 1, 1]}, w_zp="absent", data="ends")


@CATALOGUE
def w_zero_point_only():
    """x_zero_point omitted by the empty name, w_zero_point given."""
    return CI(types=(U8, I8), attrs={"pads": [1, 1, 1, 1]}, x_zp="absent")


@CATALOGUE
def zero_points_one_element():
    """Zero points of shape [1] [READING_ONE_ELEMENT]."""
    return CI(types=(U8, I8), attrs={"pads": [1, 1, 1, 1]}, x_zp="one", w_zp="one", data="ends")


@CATALOGUE
def pads_absent():
    return CI()


@CATALOGUE
def pads_asymmetric():
    return CI(attrs={"pads": [2, 0, 1, 3]}, data="ends")


@CATALOGUE
def auto_pad_notset():
    return CI(attrs={"auto_pad": "NOTSET", "pads": [1, 2, 1, 2]}, data="ends")


@CATALOGUE
def auto_pad_valid():
    return CI(x_shape=(1, 3, 8, 7), attrs={"auto_pad": "VALID", "strides": [2, 3]})


def _same_padding() -> None:
    """SAME_UPPER / SAME_LOWER for strides 1, 2 and dilations 1, 2, odd and even total padding (QLinearConv's grid:
    (stride, dilation, parity) -> (kernel, input)); W = H + 2 keeps the parity, so a swapped axis shows; zero points
    at their ends, so the padding's value shows too."""
    grid = {(1, 1, "even"): (3, 6), (1, 1, "odd"): (4, 6), (1, 2, "even"): (3, 7), (2, 1, "even"): (3, 7),
            (2, 1, "odd"): (3, 6), (2, 2, "odd"): (3, 6)}
    for mode in ("SAME_UPPER", "SAME_LOWER"):
        for (s, d, parity), (k, h) in grid.items():
            attrs = {"auto_pad": mode, "strides": [s, s], "dilations": [d, d]}
            CATALOGUE.add(f"{mode.lower()}_s{s}_d{d}_{parity}",
                          lambda h=h, k=k, attrs=attrs: CI(x_shape=(1, 2, h, h + 2), kernel=(k, k), m=3, attrs=attrs,
                                                           types=(U8, I8), data="ends"))


_same_padding()


@CATALOGUE
def strides_2():
    return CI(x_shape=(1, 3, 9, 8), attrs={"strides": [2, 2], "pads": [1, 1, 1, 1]})


@CATALOGUE
def dilations_2():
    return CI(x_shape=(1, 3, 9, 8), attrs={"dilations": [2, 2], "pads": [2, 1, 2, 1]}, w_zp="channel")


@CATALOGUE
def strides_dilations_per_axis():
    return CI(x_shape=(1, 3, 9, 10), attrs={"strides": [1, 2], "dilations": [2, 1], "pads": [1, 0, 0, 1]})


@CATALOGUE
def kernel_shape_given():
    return CI(attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})


@CATALOGUE
def explicit_defaults():
    """The explicit-defaults axis (generator/axes.py): every attribute written with its default value (the schema's
    auto_pad "NOTSET" and group 1, the text's strides / dilations 1, pads 0, kernel_shape w's), on a kernel that is
    not square: reading a present attribute wrongly (conv_integer.auto_pad_present_as_same_upper) shows."""
    kernel = (2, 3)
    attrs = dict(axes.attribute_defaults("ConvInteger", OPSET), strides=[1, 1], dilations=[1, 1], pads=[0, 0, 0, 0],
                 kernel_shape=list(kernel))
    return CI(x_shape=(1, 3, 6, 7), kernel=kernel, attrs=attrs, w_zp="channel")


@CATALOGUE
def kernel_1x1():
    return CI(kernel=(1, 1), types=(I8, I8))


@CATALOGUE
def kernel_even():
    return CI(kernel=(2, 4), attrs={"pads": [1, 1, 0, 2]}, types=(U8, I8))


@CATALOGUE
def kernel_full_padded():
    return CI(x_shape=(1, 3, 5, 4), kernel=(7, 6), attrs={"pads": [1, 1, 1, 1]}, data="ends")


@CATALOGUE
def group_2():
    return CI(x_shape=(1, 4, 6, 6), m=6, attrs={"group": 2, "pads": [1, 1, 1, 1]}, w_zp="channel")


@CATALOGUE
def depthwise():
    return CI(x_shape=(1, 4, 6, 6), m=4, attrs={"group": 4, "pads": [1, 1, 1, 1]}, types=(U8, I8))


@CATALOGUE
def depthwise_multiplier():
    return CI(x_shape=(1, 3, 6, 6), m=6, attrs={"group": 3, "pads": [1, 1, 1, 1]}, w_zp="channel")


@CATALOGUE
def batch_3():
    return CI(x_shape=(3, 3, 6, 6), attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def conv1d():
    return CI(x_shape=(1, 3, 11), kernel=(3,), attrs={"pads": [1, 2], "strides": [2]}, data="ends")


@CATALOGUE
def conv1d_per_channel_same_lower_dilation():
    return CI(x_shape=(2, 2, 9), kernel=(3,), m=3, attrs={"auto_pad": "SAME_LOWER", "dilations": [2]},
              w_zp="channel")


@CATALOGUE
def conv3d():
    return CI(x_shape=(1, 2, 4, 5, 6), kernel=(3, 2, 3), m=3, attrs={"pads": [1, 0, 1, 1, 1, 0]}, types=(I8, U8))


@CATALOGUE
def conv3d_per_channel():
    """w_zero_point per output channel on a 3-D convolution (w of rank 5), M != C / group: a zero point lined up on
    another axis than the output channels' shows or fails to broadcast (conv_integer.w_zero_point_as_4d)."""
    return CI(x_shape=(1, 2, 3, 4, 5), kernel=(2, 3, 3), m=3, attrs={"pads": [0, 1, 1, 0, 1, 1]}, w_zp="channel")


@CATALOGUE
def conv3d_same_upper_strides():
    return CI(x_shape=(1, 2, 5, 4, 6), kernel=(2, 3, 3), m=3, attrs={"auto_pad": "SAME_UPPER", "strides": [2, 1, 2]})


def _sum_data(ci: CI, products: list[tuple[int, int, int]]) -> list[np.ndarray]:
    """x (1, C, 1) and w (1, C, 1) whose channels hold the (x, w, count) runs given, zero points 0."""
    xt, wt = (np.dtype(t) for t in ci.types)
    x = np.concatenate([np.full(n, a, np.int64) for a, _, n in products]).astype(xt).reshape(1, -1, 1)
    w = np.concatenate([np.full(n, b, np.int64) for _, b, n in products]).astype(wt).reshape(1, -1, 1)
    return feed(ci, x, w, np.array(0, xt), np.array(0, wt))


def _sum_case(types: tuple, sets: list[list[tuple[int, int, int]]]) -> tuple[CI, list]:
    c = sum(n for _, _, n in sets[0])
    ci = CI(x_shape=(1, c, 1), kernel=(1,), m=1, types=types, data="sum")
    return ci, [_sum_data(ci, s) for s in sets]


@CATALOGUE
def int32_max():
    """A sum of exactly 2**31 - 1: 33025 products 255 * 255, one 255 * 129, one 127 * 1 (C = 33027, kernel 1)."""
    assert 33025 * 255 * 255 + 255 * 129 + 127 == INT32_MAX
    return _sum_case((U8, U8), [[(255, 255, 33025), (255, 129, 1), (127, 1, 1)]])


@CATALOGUE
def int32_min():
    """A sum of exactly -2**31: 65793 products 255 * -128 and one 1 * -128 (x uint8, w int8, C = 65794)."""
    assert 65793 * 255 * -128 - 128 == INT32_MIN
    return _sum_case((U8, I8), [[(255, -128, 65793), (1, -128, 1)]])


@CATALOGUE
def sum_beyond_float32():
    """An odd sum beyond 2**24: 258 products 255 * 255, then 255 * 1 and 0 (C = 260): no float32 holds it
    (conv_integer.accumulate_float32)."""
    return _sum_case((U8, U8), [[(255, 255, 258), (255, 1, 1), (0, 0, 1)]])


@PROBES
def int32_max_overflow_probe():
    """One beyond int32's top (2**31): the text allows the overflow and names no result [UNDEF_ACC_INT32]."""
    return _sum_case((U8, U8), [[(255, 255, 33025), (255, 129, 1), (128, 1, 1)]])


@PROBES
def int32_min_overflow_probe():
    """One beyond int32's bottom (-2**31 - 1)."""
    return _sum_case((U8, I8), [[(255, -128, 65793), (1, -128, 1), (1, -1, 1)]])
