"""The MatMulInteger reference (generator/reference/matmul_integer.py) on examples checked by hand from
onnx.defs MatMulInteger-10."""

import numpy as np
import pytest

from generator.dtypes import get
from generator.reference import lookup
from generator.reference.matmul_integer import matmul_integer, validate


def test_the_schema_example_with_a_scalar_a_zero_point():
    # onnx's own example: A - 12 times B, by hand: row 0 is (-1, -5, -9) . B = (-1-10-27, -4-25-54)
    a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8)
    b = np.array([[1, 4], [2, 5], [3, 6]], np.uint8)
    y = matmul_integer(a, b, np.uint8(12), np.uint8(0))
    assert y.dtype == np.int32
    assert y.tolist() == [[-38, -83], [-44, -98], [-50, -113], [-56, -128]]


def test_zero_points_default_to_zero_and_are_per_row_of_a_and_per_column_of_b():
    a = np.array([[1, 2], [3, 4]], np.int8)
    b = np.array([[5, 6], [7, 8]], np.int8)
    assert matmul_integer(a, b).tolist() == [[19, 22], [43, 50]]
    # a_zero_point per row (an M vector): row 0 - 1, row 1 - 3: [[0, 1], [0, 1]] . B
    assert matmul_integer(a, b, np.array([1, 3], np.int8)).tolist() == [[7, 8], [7, 8]]
    # b_zero_point per column (an N vector): column 0 - 5, column 1 - 8: B - zp = [[0, -2], [2, 0]]
    assert matmul_integer(a, b, None, np.array([5, 8], np.int8)).tolist() == [[4, -2], [8, -6]]


def test_int8_values_and_uint8_zero_points_are_exact():
    a = np.array([[-128, 127]], np.int8)
    b = np.array([[255], [0]], np.uint8)
    # (-128 - 127) * (255 - 128) + (127 - 127) * (0 - 128) = -255 * 127
    assert matmul_integer(a, b, np.int8(127), np.uint8(128)).tolist() == [[-32385]]


def test_batched_operands_broadcast_as_numpy_matmul():
    a = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    b = np.ones((3, 1), np.uint8)
    assert matmul_integer(a, b).tolist() == [[[3], [12]], [[21], [30]]]


def test_only_the_accumulation_overflows_and_it_wraps_in_32_bits():
    k = 33026  # 255 * 255 * 33026 = 2147515650 > 2**31 - 1
    a = np.full((1, k), 255, np.uint8)
    b = np.full((k, 1), 255, np.uint8)
    assert matmul_integer(a, b).tolist() == [[2147515650 - 2 ** 32]]


def test_types_outside_int8_and_uint8_are_refused():
    with pytest.raises(TypeError, match="A must be int8 or uint8"):
        matmul_integer(np.zeros((1, 1), np.int16), np.zeros((1, 1), np.uint8))
    with pytest.raises(ValueError, match="a_zero_point must have the type of A"):
        validate({}, 10, [get("uint8"), get("uint8"), get("int8"), None], [2, 2, 0, None])
    with pytest.raises(ValueError, match="B must be int8 or uint8"):
        validate({}, 10, [get("uint8"), get("int32")], [2, 2])


def test_it_is_the_node_function_of_matmul_integer():
    fn = lookup("", "MatMulInteger")
    a, b = np.array([[11, 7, 3]], np.uint8), np.array([[1], [2], [3]], np.uint8)
    (y,) = fn([a, b, np.array(12, np.uint8), None], {}, 10, [get("uint8")] * 3 + [None])
    assert y.tolist() == [[-38]]
