"""The chains' composed expectations (generator/reference/chains.py) on examples checked by hand from the texts:
Cast.txt (round to nearest even, overflow, float8 saturate), QuantizeLinear / DequantizeLinear,
DynamicQuantizeLinear-11's function body and MatMulInteger-10."""

import numpy as np
import pytest

from generator.reference import chains


def _f32(*v):
    return np.array(v, np.float32)


def test_float_float16_float_rounds_and_overflows():
    (y,) = chains.cast_chain(_f32(0.1, 1 + 2 ** -11, 65519, 65520, -70000), ["float", "float16", "float"]).outputs
    # 0.1 -> float16 0x2E66 = 1638 * 2**-14; 1 + 2**-11 is a tie -> 1 (even); 65519 -> 65504; from 65520 on: Inf
    assert y.dtype == np.float32
    assert y.tolist() == [1638 * 2 ** -14, 1.0, 65504.0, np.inf, -np.inf]


def test_int32_float16_float_of_70000_is_infinite():
    (y,) = chains.cast_chain(np.array([70000, 2049, 65519], np.int32), ["int32", "float16", "float"]).outputs
    assert y.tolist() == [np.inf, 2048.0, 65504.0]  # 2049: a tie between 2048 and 2050 -> 2048 (even)


def test_int_float_int_loses_the_integers_float_cannot_hold():
    (y,) = chains.cast_chain(np.array([2 ** 24 + 1, 2 ** 24 + 3, -7], np.int64), ["int64", "float", "int64"]).outputs
    assert y.tolist() == [2 ** 24, 2 ** 24 + 4, -7]  # ties to even: ...+1 -> 2**24, ...+3 -> 2**24 + 4


def test_float_int_float_truncates_and_loses_the_sign_of_zero():
    (y,) = chains.cast_chain(_f32(2.5, -2.5, 3.99, -0.0), ["float", "int32", "float"]).outputs
    assert y.tolist() == [2.0, -2.0, 3.0, 0.0] and not np.signbit(y[3])


def test_float8_saturate_decides_out_of_range():
    x = _f32(500, -1e6, 61440)
    sat = chains.cast_chain(x, ["float", "float8e4m3fn", "float"], saturate=True).outputs[0]
    nosat = chains.cast_chain(x, ["float", "float8e4m3fn", "float"], saturate=False).outputs[0]
    assert sat.tolist() == [448.0, -448.0, 448.0]
    assert np.isnan(nosat).all()  # e4m3fn has no Inf: NaN
    e5 = chains.cast_chain(_f32(61440, 57344), ["float", "float8e5m2", "float"], saturate=False).outputs[0]
    assert e5.tolist() == [np.inf, 57344.0]  # 61440 is the tie between 57344 and 65536: even is 65536 -> Inf
    e5s = chains.cast_chain(_f32(61440, np.inf), ["float", "float8e5m2", "float"], saturate=True).outputs[0]
    assert e5s.tolist() == [57344.0, 57344.0]


def test_a_step_that_is_undefined_leaves_the_chain_undefined_there():
    out = chains.cast_chain(_f32(1.0, 3e9), ["float", "int32", "float"])
    assert out.mask().tolist() == [False, True]  # float -> int32 out of range: Cast.txt leaves it undefined


def test_qdq_is_the_quantize_dequantize_rounding():
    (y,) = chains.qdq(_f32(0.125, 0.375, 0.3, 100, -100), np.float32(0.25), np.uint8(128), opset=21).outputs
    # x / 0.25 = 0.5 -> 0 (even), 1.5 -> 2, 1.2 -> 1, 400 -> saturates at 255 - 128 = 127, -400 -> 0 - 128
    assert y.tolist() == [0.0, 0.5, 0.25, 31.75, -32.0]


def test_dq_conv_q_on_a_one_pixel_convolution():
    x = np.array([[[[130, 125]]]], np.uint8)  # x - 128 = (2, -3), times 2**-4
    w = np.array([[[[3]]]], np.int8)  # times 2**-3
    # float Conv: 6 * 2**-7, -9 * 2**-7; / 2**-6: 3, -4.5 -> -4 (even); + 127: 130, 123
    (y,) = chains.dq_conv_q(x, np.float32(2 ** -4), np.uint8(128), w, np.float32(2 ** -3), np.int8(0),
                            np.float32(2 ** -6), np.uint8(127), strides=[1, 1], pads=[0, 0, 0, 0], opset=21).outputs
    assert y.dtype == np.uint8 and y.tolist() == [[[[130, 123]]]]


def test_dq_conv_q_refuses_inputs_whose_float_conv_is_not_exact():
    x, w = np.full((1, 1, 1, 1), 130, np.uint8), np.full((1, 1, 1, 1), 3, np.int8)
    with pytest.raises(ValueError, match="not exact"):
        chains.dq_conv_q(x, np.float32(0.1), np.uint8(128), w, np.float32(2 ** -3), np.int8(0), np.float32(1),
                         np.uint8(0), strides=[1, 1], pads=[0, 0, 0, 0], opset=21)
    assert chains.conv_is_exact(np.full((1, 1, 1, 1), 2 ** 12), np.full((1, 1, 1, 1), 2 ** 11), 1.0, 1.0)
    assert not chains.conv_is_exact(np.full((1, 1, 1, 1), 2 ** 12), np.full((1, 1, 1, 1), 2 ** 12), 1.0, 1.0)


def test_dql_matmul_integer():
    # DynamicQuantizeLinear of (-1, 127 / 128): range 255 / 128, scale 2**-7 exactly, zero point 0 - (-128) = 128,
    # q = (-128 + 128, 127 + 128) = (0, 255)
    a = _f32(-1, 127 / 128).reshape(1, 2)
    y, scale, zp = chains.dql_matmul_integer(a, np.ones((2, 1), np.uint8), None).outputs
    assert zp == 128 and scale == 2 ** -7
    assert y.tolist() == [[(0 - 128) + (255 - 128)]]
    (yf,) = chains.dql_matmul_integer_scaled(a, np.ones((2, 1), np.uint8), None, np.float32(0.5)).outputs
    assert yf.tolist() == [[-1 * 2 ** -8]]


def test_dql_matmul_integer_is_undefined_where_dynamic_quantize_linear_is():
    out = chains.dql_matmul_integer(np.zeros((1, 2), np.float32), np.ones((2, 1), np.uint8), None)
    assert not out.defined  # a zero range: scale 0 (DynamicQuantizeLinear-11)
