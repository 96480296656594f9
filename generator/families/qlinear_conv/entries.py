"""The QLinearConv catalogue: one function per fixed case, returning its Conv (CATALOGUE; PROBES: data the spec
leaves undefined, whole data sets go to probe/); the case is test_qlinearconv_<function name>."""

from __future__ import annotations

from dataclasses import replace

from generator import axes
from generator.family import Catalogue
from generator.families.qlinear_conv.conv import OPSET, Conv

CATALOGUE = Catalogue()
PROBES = Catalogue()
U8, I8 = "uint8", "int8"


@CATALOGUE
def pads_absent():
    return Conv()


@CATALOGUE
def pads_zero():
    return Conv(attrs={"pads": [0, 0, 0, 0]})


@CATALOGUE
def pads_symmetric():
    return Conv(attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def pads_asymmetric():
    return Conv(attrs={"pads": [2, 0, 1, 3]})


@CATALOGUE
def auto_pad_notset():
    return Conv(attrs={"auto_pad": "NOTSET", "pads": [1, 2, 1, 2]})


@CATALOGUE
def auto_pad_valid():
    return Conv(x_shape=(1, 3, 8, 7), attrs={"auto_pad": "VALID"})


@CATALOGUE
def auto_pad_valid_strides():
    return Conv(x_shape=(1, 3, 8, 7), attrs={"auto_pad": "VALID", "strides": [2, 3]})


def _same_padding() -> None:
    """SAME_UPPER / SAME_LOWER for strides 1, 2 and dilations 1, 2, with odd and even total padding (per axis:
    (stride, dilation, parity) -> (kernel, input) giving that parity; stride 1 with dilation 2 pads
    2 * (k - 1), never odd). W is H + 2, which keeps the parity, so a swapped axis shows."""
    grid = {(1, 1, "even"): (3, 6), (1, 1, "odd"): (4, 6), (1, 2, "even"): (3, 7), (2, 1, "even"): (3, 7),
            (2, 1, "odd"): (3, 6), (2, 2, "even"): (3, 7), (2, 2, "odd"): (3, 6)}
    for mode in ("SAME_UPPER", "SAME_LOWER"):
        for (s, d, parity), (k, h) in grid.items():
            attrs = {"auto_pad": mode, "strides": [s, s], "dilations": [d, d]}
            CATALOGUE.add(f"{mode.lower()}_s{s}_d{d}_{parity}",
                          lambda h=h, k=k, attrs=attrs: Conv(x_shape=(1, 2, h, h + 2), kernel=(k, k), m=3, attrs=attrs))


_same_padding()


@CATALOGUE
def strides_2():
    return Conv(x_shape=(1, 3, 9, 8), attrs={"strides": [2, 2], "pads": [1, 1, 1, 1]})


@CATALOGUE
def dilations_2():
    return Conv(x_shape=(1, 3, 9, 8), attrs={"dilations": [2, 2], "pads": [2, 1, 2, 1]})


@CATALOGUE
def strides_dilations_per_axis():
    return Conv(x_shape=(1, 3, 9, 10), attrs={"strides": [1, 2], "dilations": [2, 1], "pads": [1, 0, 0, 1]})


@CATALOGUE
def kernel_shape_given():
    return Conv(attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})


@CATALOGUE
def explicit_defaults():
    """The explicit-defaults axis (generator/axes.py): every attribute written with its default value: the schema's
    (auto_pad "NOTSET", group 1: axes.attribute_defaults) and the text's (strides and dilations 1, pads 0,
    kernel_shape W's), on a kernel that is not square: an implementation that reads a present attribute wrongly
    (qlinear_conv.auto_pad_present_as_same_upper) changes the output."""
    kernel = (2, 3)
    attrs = dict(axes.attribute_defaults("QLinearConv", OPSET), strides=[1, 1], dilations=[1, 1], pads=[0, 0, 0, 0],
                 kernel_shape=list(kernel))
    return Conv(x_shape=(1, 3, 6, 7), kernel=kernel, attrs=attrs, bias="random")


@CATALOGUE
def kernel_1x1():
    return Conv(kernel=(1, 1))


@CATALOGUE
def kernel_even():
    return Conv(kernel=(2, 4), attrs={"pads": [1, 1, 0, 2]})


@CATALOGUE
def kernel_odd():
    return Conv(kernel=(3, 5), attrs={"pads": [1, 2, 1, 2]})


@CATALOGUE
def kernel_full_padded():
    return Conv(x_shape=(1, 3, 5, 4), kernel=(7, 6), attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def kernel_full_valid():
    return Conv(x_shape=(1, 3, 5, 4), kernel=(5, 4), attrs={"auto_pad": "VALID"})


@CATALOGUE
def group_2():
    return Conv(x_shape=(1, 4, 6, 6), m=6, attrs={"group": 2, "pads": [1, 1, 1, 1]})


@CATALOGUE
def depthwise():
    return Conv(x_shape=(1, 4, 6, 6), m=4, attrs={"group": 4, "pads": [1, 1, 1, 1]})


@CATALOGUE
def depthwise_multiplier():
    return Conv(x_shape=(1, 3, 6, 6), m=6, attrs={"group": 3, "pads": [1, 1, 1, 1]})


@CATALOGUE
def batch_3():
    return Conv(x_shape=(3, 3, 6, 6), attrs={"pads": [1, 1, 1, 1]})


@CATALOGUE
def conv1d():
    return Conv(x_shape=(1, 3, 11), kernel=(3,), attrs={"pads": [1, 2], "strides": [2]})


@CATALOGUE
def conv1d_same_lower_dilation():
    return Conv(x_shape=(2, 2, 9), kernel=(3,), m=3, attrs={"auto_pad": "SAME_LOWER", "dilations": [2]})


@CATALOGUE
def conv3d():
    return Conv(x_shape=(1, 2, 4, 5, 6), kernel=(3, 2, 3), m=3, attrs={"pads": [1, 0, 1, 1, 1, 0]})


@CATALOGUE
def conv3d_same_upper_strides():
    return Conv(x_shape=(1, 2, 5, 4, 6), kernel=(2, 3, 3), m=3,
                attrs={"auto_pad": "SAME_UPPER", "strides": [2, 1, 2]})


# Per-output-channel w_scale / w_zero_point in 3-D (w of rank 5): output depths equal to M, 1 and neither, w's
# input channels C / group equal to M or not (an implementation that lines the M values up on an axis other than the
# output channels' gets a wrong value or a broadcast error: qlinear_conv.per_channel_as_4d).
@CATALOGUE
def conv3d_per_channel_zero_point():
    return Conv(x_shape=(1, 2, 3, 4, 5), kernel=(2, 3, 3), m=2, attrs={"pads": [0, 1, 1, 0, 1, 1]},
                per_channel="zero_point")


@CATALOGUE
def conv3d_per_channel_scale_bias():
    return Conv(x_shape=(1, 3, 3, 4, 4), kernel=(1, 3, 3), m=3, attrs={"pads": [0, 1, 1, 0, 1, 1]},
                per_channel="scale", bias="random")


@CATALOGUE
def conv3d_per_channel_depth_1():
    return Conv(x_shape=(1, 2, 2, 4, 4), kernel=(2, 3, 3), m=2, per_channel="zero_point")


@CATALOGUE
def conv3d_per_channel_depth_3():
    return Conv(x_shape=(1, 2, 4, 4, 4), kernel=(2, 3, 3), m=2, per_channel="zero_point")


@CATALOGUE
def conv3d_per_channel_m3_c2():
    return Conv(x_shape=(1, 2, 4, 4, 4), kernel=(2, 3, 3), m=3, per_channel="zero_point")


@CATALOGUE
def per_channel_scale():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale")


@CATALOGUE
def per_channel_zero_point():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="zero_point")


@CATALOGUE
def per_channel_zero_point_int8():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), per_channel="zero_point")


@CATALOGUE
def x_zero_point_padding():
    return Conv(attrs={"pads": [2, 2, 2, 2]}, zero_points="ends")


@CATALOGUE
def x_zero_point_padding_int8():
    return Conv(attrs={"pads": [2, 2, 2, 2]}, types=(I8, I8, I8), zero_points="ends")


@CATALOGUE
def bias():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="random")


@CATALOGUE
def bias_negative():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="negative")


@CATALOGUE
def bias_saturate():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="saturate")


@CATALOGUE
def bias_saturate_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), bias="saturate")


@CATALOGUE
def saturate_both_ends():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="saturate", zero_points="middle")


@CATALOGUE
def saturate_both_ends_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), scales="saturate", zero_points="middle")


@CATALOGUE
def ties_pow2():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_int8():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, types=(I8, I8, I8), scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_per_channel():
    return Conv(m=5, attrs={"pads": [1, 1, 1, 1]}, per_channel="scale", scales="pow2", spread=3)


@CATALOGUE
def ties_pow2_bias():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="pow2", spread=3, bias="random")


@CATALOGUE
def ties_inexact_multiplier():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="sixth", spread=2)


@CATALOGUE
def random_scales():
    return Conv(x_shape=(2, 3, 6, 6), attrs={"pads": [1, 1, 1, 1]})


def _type_triples() -> None:
    """Every x / w / y type triple, zero points at both ends of their types."""
    for x in (U8, I8):
        for w in (U8, I8):
            for y in (U8, I8):
                CATALOGUE.add(f"x_{x}_w_{w}_y_{y}",
                              lambda t=(x, w, y): Conv(attrs={"pads": [1, 1, 1, 1]}, types=t, zero_points="ends"))


_type_triples()


@PROBES
def bias_int32_overflow_probe():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, bias="int32_overflow")


@PROBES
def scale_probe():
    return Conv(attrs={"pads": [1, 1, 1, 1]}, scales="bad")


@PROBES
def nan_scale_probe():
    """The NaN-payload axis: every float32 NaN encoding kind (quiet, signalling, payloads, both signs) as x_scale,
    w_scale or y_scale in turn: a scale that is no positive number is undefined [reference: UNDEF_SCALE]."""
    return Conv(x_shape=(1, 2, 4, 4), m=2, attrs={"pads": [1, 1, 1, 1]}, scales="nan")


def catalogue(entries: Catalogue = CATALOGUE) -> list[Conv]:
    """The Conv of every entry of a catalogue (CATALOGUE: every fixed case; PROBES), named for its entry."""
    return [replace(build(), what=name) for name, build in entries.items()]
