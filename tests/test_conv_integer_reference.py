"""The ConvInteger reference (generator/reference/conv_integer.py) against the operator's own examples
(onnx/docs/Operators.md, ConvInteger: without_padding, with_padding) and against an independent brute-force
convolution written here: a loop over every output element and every tap, reading x through the padding by index
(a padded tap reads x_zero_point), in Python integers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from generator import sampling
from generator.dtypes import get
from generator.reference import conv_integer as ref
from generator.reference import lookup


def brute(x, w, xz, wz, pads_begin, strides, dilations, group, out):
    """y[n, m, o...] = sum_{c in m's group, k} (x[n, c, o * s + k * d - pad] - xz) * (w[m, c, k] - wz[m]), a tap
    outside x reading xz (the READING_PADDING value), every value a Python int."""
    n_, c_ = x.shape[:2]
    m_, cg = w.shape[:2]
    kernel = w.shape[2:]
    mg = m_ // group
    wz = [int(v) for v in np.broadcast_to(np.asarray(wz, np.int64).reshape(-1), (m_,))]
    y = np.zeros((n_, m_) + tuple(out), np.int64)
    for n in range(n_):
        for m in range(m_):
            g = m // mg
            for o in itertools.product(*(range(v) for v in out)):
                total = 0
                for c in range(cg):
                    for k in itertools.product(*(range(v) for v in kernel)):
                        pos = [oi * s + ki * d - p for oi, ki, s, d, p in zip(o, k, strides, dilations, pads_begin)]
                        inside = all(0 <= p < size for p, size in zip(pos, x.shape[2:]))
                        xv = int(x[(n, g * cg + c) + tuple(pos)]) if inside else int(xz)
                        total += (xv - int(xz)) * (int(w[(m, c) + k]) - wz[m])
                y[(n, m) + o] = total
    return y


def example_x():
    return np.arange(2, 11, dtype=np.uint8).reshape(1, 1, 3, 3)


def test_the_example_without_padding():
    y = ref.conv_integer(example_x(), np.ones((1, 1, 2, 2), np.uint8), np.uint8(1)).outputs[0]
    assert y.dtype == np.int32 and y.tolist() == [[[[12, 16], [24, 28]]]]


def test_the_example_with_padding_pads_with_x_zero_point():
    """READING_PADDING rests on this example: y[0, 0, 0, 0] = 1 = (2 - 1) * 1 (a padded tap adds nothing); 0
    padding would give 3 * (0 - 1) + (2 - 1) = -2 there."""
    y = ref.conv_integer(example_x(), np.ones((2, 1, 2, 2), np.uint8), np.uint8(1), np.array([0, 1], np.uint8),
                         pads=[1, 1, 1, 1]).outputs[0]
    want = [[1, 3, 5, 3], [5, 12, 16, 9], [11, 24, 28, 15], [7, 15, 17, 9]]
    assert y[0, 0].tolist() == want and not y[0, 1].any()
    assert 3 * (0 - 1) + (2 - 1) == -2 != y[0, 0, 0, 0]


def _config(s: sampling.Stream):
    nd = s.integers(1, 3)
    group = s.choice([1, 2, 3])
    cg, mg = s.integers(1, 3), s.integers(1, 2)
    kernel = tuple(s.integers(1, 3) for _ in range(nd))
    strides = [s.integers(1, 3) for _ in range(nd)]
    dilations = [s.integers(1, 2) for _ in range(nd)]
    auto_pad = s.choice(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
    attrs = {"strides": strides, "dilations": dilations, "group": group}
    if auto_pad == "NOTSET":
        attrs["pads"] = [s.integers(0, 2) for _ in range(2 * nd)]
    else:
        attrs["auto_pad"] = auto_pad
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    spatial = tuple(e + s.integers(0, 3) for e in extent)
    xt, wt = (get(s.choice(["uint8", "int8"])) for _ in range(2))
    x = s.integers(xt.int_min, xt.int_max, (s.integers(1, 2), cg * group) + spatial, dtype=xt.np_dtype)
    w = s.integers(wt.int_min, wt.int_max, (mg * group, cg) + kernel, dtype=wt.np_dtype)
    xz = np.array(s.integers(xt.int_min, xt.int_max), xt.np_dtype)
    wz = s.integers(wt.int_min, wt.int_max, (mg * group,) if s.booleans() else (), dtype=wt.np_dtype)
    return x, w, xz, np.asarray(wz, wt.np_dtype), attrs


@pytest.mark.parametrize("i", range(40))
def test_random_configurations_match_the_brute_force_loop(i):
    x, w, xz, wz, attrs = _config(sampling.Stream(sampling.case_seed(i, "conv_integer_reference")))
    begin, _, out, strides, dilations = ref.geometry(x.shape, w.shape, attrs)
    got = ref.conv_integer(x, w, xz, wz, **attrs)
    assert got.defined
    want = brute(x, w, xz, wz, begin, strides, dilations, attrs["group"], out)
    assert np.array_equal(got.outputs[0].astype(np.int64), want), attrs


def test_same_padding_puts_the_odd_pixel_where_the_text_says():
    """SAME_UPPER: "the extra padding is added at the end"; SAME_LOWER: at the beginning [auto_pad]."""
    assert ref.geometry((1, 1, 6), (1, 1, 4), {"auto_pad": "SAME_UPPER"})[:3] == ([1], [2], [6])
    assert ref.geometry((1, 1, 6), (1, 1, 4), {"auto_pad": "SAME_LOWER"})[:3] == ([2], [1], [6])
    assert ref.geometry((1, 1, 6), (1, 1, 3), {"auto_pad": "SAME_UPPER", "strides": [2]})[:3] == ([0], [1], [3])


def test_absent_zero_points_are_zero():
    s = sampling.Stream(3)
    x = s.integers(-128, 127, (1, 2, 5), dtype=np.int8)
    w = s.integers(-128, 127, (3, 2, 2), dtype=np.int8)
    a = ref.conv_integer(x, w).outputs[0]
    b = ref.conv_integer(x, w, np.int8(0), np.zeros(3, np.int8)).outputs[0]
    assert np.array_equal(a, b) and a.dtype == np.int32


def test_sums_beyond_int32_are_undefined_and_int32_ends_exact():
    """33025 * 255 * 255 + 255 * 129 + 127 = 2**31 - 1 is defined; one more is not ("The accumulation may overflow
    if and only if in 32 bits")."""
    x = np.concatenate([np.full(33025, 255), [255, 127]]).astype(np.uint8).reshape(1, -1, 1)
    w = np.concatenate([np.full(33025, 255), [129, 1]]).astype(np.uint8).reshape(1, -1, 1)
    got = ref.conv_integer(x, w)
    assert got.defined and int(got.outputs[0].reshape(-1)[0]) == 2**31 - 1
    x[0, -1, 0] = 128
    over = ref.conv_integer(x, w)
    assert over.reasons == [ref.UNDEF_ACC_INT32] and over.mask().all()
    assert int(over.outputs[0].reshape(-1)[0]) == -(2**31)  # the placeholder: the wrapped value


def test_the_node_function_checks_types_and_shapes():
    node = lookup("", "ConvInteger")
    u8, i8, i16 = get("uint8"), get("int8"), get("int16")
    node.validate({}, 10, [u8, i8, u8, i8], [4, 4, 0, 1])
    for types in ([i16, u8], [u8, u8, i8], [u8, i8, u8, u8]):
        with pytest.raises(ValueError):
            node.validate({}, 10, types, [4] * len(types))
    with pytest.raises(ValueError, match="auto_pad"):
        node.validate({"auto_pad": "SAME"}, 10, [u8, u8], [4, 4])
    with pytest.raises(ValueError, match="pads cannot"):
        node.validate({"auto_pad": b"VALID", "pads": [0, 0, 0, 0]}, 10, [u8, u8], [4, 4])
    node.validate_shapes([(1, 4, 5, 5), (4, 4, 3, 3), (), (4,)], {}, 10)
    node.validate_shapes([(1, 4, 5, 5), (4, 4, 3, 3), (1,), (1,)], {}, 10)  # READING_ONE_ELEMENT
    node.validate_shapes([(1, "C", 5, 5), (4, 4, 3, 3), (), (3,)], {}, 10)  # unknown dims: nothing to check
    bad = [[(1, 4, 5, 5), (4, 4, 3, 3), (), (3,)], [(1, 4, 5, 5), (4, 4, 3, 3), (4,), ()],
           [(1, 4, 5, 5), (4, 4, 3, 3), (), (4, 1)], [(1, 4, 5, 5), (4, 3, 3, 3)], [(1, 4, 5, 5), (4, 4, 3)],
           [(1, 4, 2, 2), (4, 4, 3, 3)]]
    for shapes in bad:
        with pytest.raises(ValueError, match="ConvInteger"):
            node.validate_shapes(shapes, {}, 10)
    with pytest.raises(ValueError, match="group"):
        node.validate_shapes([(1, 3, 5, 5), (4, 1, 3, 3)], {"group": 2}, 10)
    with pytest.raises(ValueError, match="kernel_shape"):
        node.validate_shapes([(1, 4, 5, 5), (4, 4, 3, 3)], {"kernel_shape": [2, 2]}, 10)
    y, = node([np.zeros((1, 1, 3, 3), np.uint8), np.ones((1, 1, 2, 2), np.uint8)], {"pads": [1, 1, 1, 1]}, 10,
              [u8, u8])
    assert y.shape == (1, 1, 4, 4) and not y.any()


def test_readings_name_what_a_case_rests_on():
    pads = {"pads": [1, 1, 1, 1]}
    assert ref.READING_PADDING in ref.readings(pads, (1, 1, 3, 3), (1, 1, 2, 2))
    assert ref.READING_PADDING not in ref.readings({}, (1, 1, 3, 3), (1, 1, 2, 2))
    assert ref.READING_PADDING not in ref.readings(pads, (1, 1, 3, 3), (1, 1, 2, 2), ("absent", "tensor"))
    assert ref.READING_ONE_ELEMENT in ref.readings({}, (1, 1, 3, 3), (1, 1, 2, 2), ("one", "tensor"))
    assert ref.READING_EXACT in ref.readings({}, (1, 33100, 1), (1, 33100, 1))
    assert ref.READING_EXACT not in ref.readings({}, (1, 3, 3), (1, 3, 2))
