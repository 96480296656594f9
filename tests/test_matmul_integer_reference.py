"""The MatMulInteger reference (generator/reference/matmul_integer.py) on examples checked by hand from
onnx.defs MatMulInteger-10, and against exhaustive enumerations computed with Python integers."""

import itertools

import numpy as np
import pytest

from generator.dtypes import get
from generator.reference import lookup
from generator.reference.matmul_integer import (INT32_MAX, INT32_MIN, UNDEF_ACC_INT32, check_shapes, matmul_integer,
                                                matmul_integer_outcome, validate, validate_shapes)

TYPES = {"uint8": np.uint8, "int8": np.int8}


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


def test_the_n_d_zero_point_forms_are_per_row_and_per_column_of_each_matrix():
    # A [2, 2, 3] with a_zero_point [2, 2, 1]; B [2, 3, 2] with b_zero_point [2, 1, 2]: each batch by hand
    a = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    b = np.arange(12, dtype=np.uint8).reshape(2, 3, 2)
    az = np.array([[[1], [2]], [[3], [4]]], np.uint8)
    bz = np.array([[[0, 1]], [[2, 3]]], np.uint8)
    y = matmul_integer(a, b, az, bz)
    for n in range(2):
        for m in range(2):
            for j in range(2):
                want = sum((int(a[n, m, k]) - int(az[n, m, 0])) * (int(b[n, k, j]) - int(bz[n, 0, j]))
                           for k in range(3))
                assert y[n, m, j] == want


def test_every_uint8_int8_pair_exhaustively_against_python_integers():
    """Every value of A's type times every value of B's, for the four type pairs and zero points at both ends and
    in the middle: one product each (K = 1), as Python integers compute it."""
    for (ta, tb) in itertools.product(TYPES, TYPES):
        ia, ib = np.iinfo(TYPES[ta]), np.iinfo(TYPES[tb])
        a = np.arange(ia.min, ia.max + 1).astype(TYPES[ta]).reshape(-1, 1)
        b = np.arange(ib.min, ib.max + 1).astype(TYPES[tb]).reshape(1, -1)
        for za, zb in ((ia.min, ib.max), (ia.max, ib.min), (0, 0), (ia.min // 2 + 7, ib.max // 3)):
            y = matmul_integer(a, b, np.array(za, TYPES[ta]), np.array(zb, TYPES[tb]))
            want = [[(x - za) * (v - zb) for v in range(ib.min, ib.max + 1)] for x in range(ia.min, ia.max + 1)]
            assert y.tolist() == want, (ta, tb, za, zb)


def test_batched_operands_broadcast_as_numpy_matmul():
    a = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    b = np.ones((3, 1), np.uint8)
    assert matmul_integer(a, b).tolist() == [[[3], [12]], [[21], [30]]]
    # [2, 1, 1, 2] x [3, 2, 1] -> [2, 3, 1, 1]: every batch pair
    a = np.array([1, 2, 3, 4], np.int8).reshape(2, 1, 1, 2)
    b = np.array([1, -1, 2, 0, 0, 5], np.int8).reshape(3, 2, 1)
    y = matmul_integer(a, b)
    assert y.shape == (2, 3, 1, 1)
    assert y.reshape(2, 3).tolist() == [[1 - 2, 2, 10], [3 - 4, 6, 20]]


def test_one_d_operands_are_a_row_and_a_column_whose_dimension_is_removed():
    a = np.array([1, 2, 3], np.uint8)
    b = np.array([[1, 0], [0, 1], [1, 1]], np.uint8)
    assert matmul_integer(a, b).tolist() == [4, 5]
    assert matmul_integer(b.T.copy(), a).tolist() == [4, 5]
    y = matmul_integer(a, a, np.uint8(1), np.uint8(2))  # (0, 1, 2) . (-1, 0, 1)
    assert y.shape == () and int(y) == 2


def test_sums_at_the_int32_ends_are_defined_and_one_beyond_is_a_probe():
    # 33025 * 65025 + 209 * 158 = 2**31 - 1; the column with b_zero_point 255 sums the negatives (+ one -1)
    from generator.families.matmul_integer.entries import int32_ends_inputs

    out = matmul_integer_outcome(*int32_ends_inputs(False))
    assert out.defined and out.outputs[0].tolist() == [[INT32_MAX, INT32_MIN]]
    beyond = matmul_integer_outcome(*int32_ends_inputs(True))
    assert beyond.reasons == [UNDEF_ACC_INT32] and beyond.mask().tolist() == [[True, True]]
    # the placeholder there is the value wrapped modulo 2**32 (what the node function gives)
    assert beyond.outputs[0].tolist() == [[INT32_MIN + 1, INT32_MAX]]


def test_only_the_accumulation_overflows_and_is_undefined_there():
    k = 33026  # 255 * 255 * 33026 = 2147515650 > 2**31 - 1
    a = np.full((1, k), 255, np.uint8)
    b = np.full((k, 1), 255, np.uint8)
    assert matmul_integer(a, b).tolist() == [[2147515650 - 2 ** 32]]
    assert not matmul_integer_outcome(a, b).defined


@pytest.mark.parametrize("a, b, az, bz", [
    ((3, 4), (4, 5), (), (5,)), ((3, 4), (4, 5), (3,), ()), ((3, 4), (4, 5), (3, 1), (1, 5)),
    ((2, 3, 4), (2, 4, 5), (2, 3, 1), (2, 1, 5)), ((4,), (4, 5), (1,), (5,)), ((3, 4), (4,), (3,), ()),
    ((2, 1, 3, 4), (3, 4, 5), (), (3, 1, 5)), ((3, 4), (4, 5), None, None)])
def test_the_shapes_the_text_allows(a, b, az, bz):
    check_shapes(a, b, az, bz)


@pytest.mark.parametrize("a, b, az, bz, match", [
    ((3, 4), (5, 2), None, None, "K = 4"), ((2, 3, 4), (3, 4, 5), None, None, "do not broadcast"),
    ((3, 4), (4, 5), (4,), None, "a_zero_point of shape \\[4\\]"), ((3, 4), (4, 5), None, (4,), "b_zero_point"),
    ((2, 3, 4), (2, 4, 5), (3,), None, "a_zero_point"), ((3, 4), (4, 5), (3, 4), None, "a_zero_point"),
    ((), (4,), None, None, "rank 1 or more")])
def test_shapes_the_text_rules_out_are_refused(a, b, az, bz, match):
    with pytest.raises(ValueError, match=match):
        check_shapes(a, b, az, bz)
    with pytest.raises(ValueError, match=match):  # the same check at prepare time, from declared shapes
        validate_shapes([a, b, az, bz], {}, 10)


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
    with pytest.raises(ValueError, match="a_zero_point"):
        fn([a, b, np.array([1, 2], np.uint8), None], {}, 10, [get("uint8")] * 3 + [None])
