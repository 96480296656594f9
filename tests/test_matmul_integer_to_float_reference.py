"""The MatMulIntegerToFloat / DynamicQuantizeMatMul references against the formula, element by element."""

import itertools

import numpy as np
import pytest

from generator.reference import dynamic_quantize_matmul as dqmm
from generator.reference import matmul_integer_to_float as mitf


def test_formula_every_uint8_int8_pair_one_k():
    a = np.arange(256, dtype=np.uint8).reshape(256, 1)
    b = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
    a_s, b_s = np.float32(0.5), np.float32(0.25)
    y = mitf.matmul_integer_to_float([a, b, a_s, b_s, np.uint8(3), np.int8(-2)]).outputs[0]
    for i, j in itertools.product(range(0, 256, 17), range(0, 256, 13)):
        assert y[i, j] == np.float32((i - 3) * (j - 128 + 2) * 0.125)


def test_per_column_b_and_bias():
    a = np.array([[1, 2, 3]], dtype=np.int8)
    b = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)
    y = mitf.matmul_integer_to_float([a, b, np.float32(2), np.array([1, 10], np.float32), None,
                                      np.array([0, 1], np.uint8), np.array([0.5, -1], np.float32)]).outputs[0]
    # column 0: (1 + 3) * 2 * 1 + 0.5; column 1: (1*-1 + 2*0 + 3*0) * 2 * 10 - 1
    assert y.tolist() == [[8.5, -21.0]]


def test_float16_t3():
    y = mitf.matmul_integer_to_float([np.ones((1, 2), np.int8), np.ones((2, 1), np.int8), np.float16(0.5),
                                      np.float16(3)]).outputs[0]
    assert y.dtype == np.float16 and y.tolist() == [[3.0]]


@pytest.mark.parametrize("shape", [(2,), (3,), (2, 1), (1, 4)])
def test_a_scale_neither_per_tensor_nor_per_k_is_invalid(shape):
    """A [2, 4]: a_scale is a scalar, one element or the 4 columns of A [READING_A_SCALE]."""
    with pytest.raises(ValueError):
        mitf.check_shapes((2, 4), (4, 3), shape, ())


def test_a_scale_per_k_dequantizes_each_column_of_a():
    """[READING_A_SCALE]: the k-th column of A with the k-th scale and zero point."""
    a = np.array([[1, 2, 3]], np.uint8)
    b = np.array([[1], [1], [1]], np.int8)
    y = mitf.matmul_integer_to_float([a, b, np.array([1, 2, 4], np.float32), np.float32(0.5),
                                      np.array([0, 1, 2], np.uint8)]).outputs[0]
    assert y.tolist() == [[(1 * 1 + 1 * 2 + 1 * 4) * 0.5]]
    mitf.check_shapes((2, 3), (3, 1), (3,), (), (3,))


def test_int32_overflow_undefined_only_per_tensor():
    """[READING_ACC_INT32]: an integer sum beyond int32 is undefined with a per-tensor A side."""
    k = 33100
    a, b = np.full((1, k), 255, np.uint8), np.full((k, 1), 255, np.uint8)
    assert not mitf.matmul_integer_to_float([a, b, np.float32(1e-9), np.float32(1)]).defined
    per_k = mitf.matmul_integer_to_float([a, b, np.full(k, 1e-9, np.float32), np.float32(1)])
    assert per_k.defined


def test_dqmm_is_dql_then_product_within_qerr():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.integers(-128, 128, (5, 4)).astype(np.int8)
    b_s = np.float32(0.01)
    ref, bnd, qerr = dqmm.dot_terms([a, b, b_s], {})
    exact = a.astype(np.float64) @ (b.astype(np.float64) * 0.01)
    assert np.all(np.abs(ref - exact) <= qerr * (1 + 1e-9))
    assert np.all(qerr > 0) and np.all(bnd >= np.abs(ref))
