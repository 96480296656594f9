"""MatMulIntegerToFloat's and DynamicQuantizeMatMul's fault models: each deviates as its line says, on inputs worked
out by hand; the groups and proofs."""

import numpy as np
import pytest

from generator.faults import Refusal
from generator.reference import dynamic_quantize_matmul_faults as df
from generator.reference import matmul_integer_to_float as ref
from generator.reference import matmul_integer_to_float_faults as mf

A = np.array([[1, 2, 3]], np.uint8)
B = np.array([[1, 2], [3, 4], [5, 6]], np.int8)


def _y(**dev):
    return mf.compute([A, B, np.float32(0.5), np.array([1, 2], np.float32), np.uint8(1), np.int8(1),
                       np.array([10, 20], np.float32)], **dev)[0].tolist()


def test_the_deviations_on_a_worked_example():
    # exact: (A - 1) = [0, 1, 2], (B - 1) = [[0, 1], [2, 3], [4, 5]] -> [10, 13]; * 0.5 * [1, 2] + [10, 20]
    assert _y() == [[15.0, 33.0]]
    assert _y(bias_ignored=True) == [[5.0, 13.0]]
    assert _y(bias_before=True) == [[(10 + 10) * 0.5, (13 + 20) * 1.0]]
    assert _y(bias_before_b=True) == [[(10 * 0.5 + 10) * 1, (13 * 0.5 + 20) * 2]]
    assert _y(b_scale_first=True) == [[15.0, 13 * 0.5 + 20]]
    assert _y(drop_b=True) == [[(0 * 1 + 1 * 3 + 2 * 5) * 0.5 + 10, (0 * 2 + 1 * 4 + 2 * 6) * 1.0 + 20]]


def test_a_per_k_scale_read_per_column_of_y():
    """onnxruntime's reading: A one-hot rows, B of ones, a_scale [1, 2, 4] gives each row [1, 2, 4]."""
    a = np.array([[1, 0, 0], [0, 1, 0]], np.uint8)
    b = np.ones((3, 3), np.uint8)
    y = mf.compute([a, b, np.array([1, 2, 4], np.float32), np.float32(1)], a_scale_per_n=True)[0]
    assert y.tolist() == [[1, 2, 4], [1, 2, 4]]
    assert ref.matmul_integer_to_float([a, b, np.array([1, 2, 4], np.float32), np.float32(1)]).outputs[0].tolist() \
        == [[1, 1, 1], [2, 2, 2]]
    with pytest.raises(Refusal):
        mf.compute([a, np.ones((3, 2), np.uint8), np.array([1, 2, 4], np.float32), np.float32(1)], a_scale_per_n=True)


def test_float16_scale_product_of_typical_scales_is_subnormal():
    a_s, b_s = np.float32(0.02), np.float32(0.002)
    y = mf.compute([np.ones((1, 1), np.uint8), np.full((1, 1), 100, np.int8), a_s, b_s], scale16=True)[0]
    assert abs(np.float16(a_s * b_s)) < np.finfo(np.float16).smallest_normal
    exact = 100 * float(a_s) * float(b_s)
    assert abs(float(y[0, 0]) - exact) > 2**-16 * exact  # float32's bound allows some 2**-21


def test_groups_and_proofs():
    meta = {"params": {"t3": "float", "a_type": "uint8", "b_type": "int8", "a_zp": "one", "a_scale": "k",
                       "b_zp": "column", "b_scale": "tensor", "bias": True, "b_shape": [2, 5, 4]}}
    assert mf.group_key(meta) == "float uint8 int8 a=k b_zp=column b_scale=tensor bias=1 b_nd"
    by = {f.name: f for f in mf.FAULTS}
    p = meta["params"]
    assert by["matmul_integer_to_float.accumulate_float32"].equivalent(p)
    assert not by["matmul_integer_to_float.int16_pair_saturation"].applies(p)
    assert by["matmul_integer_to_float.b_zero_point_per_column_nd_refused"].applies(p)
    assert df.group_key(meta) == "int8 b_zp=column b_scale=tensor bias=1 b_nd"


@pytest.mark.parametrize("how", ["int8_symmetric", "not_widened", "zero_point_zero", "truncated", "per_row"])
def test_a_quantizations_differ_from_dynamic_quantize_linear_where_they_should(how):
    step = 2.0 ** -4
    pos = (np.array([[1, 255, 37, 100], [3, 5, 7, 9]]) * step).astype(np.float32)  # A > 0 on the grid
    both = (np.array([[0, 255, 37, 100], [30, 35, 37, 40]]) - 33) * step
    data = {"int8_symmetric": pos, "not_widened": pos, "zero_point_zero": both.astype(np.float32),
            "truncated": (pos + 0.75 * step * np.array([[0, 0, 1, 1], [1, 1, 1, 1]])).astype(np.float32),
            "per_row": both.astype(np.float32)}[how]
    q, s, z = df.quantize(data, how)
    q0, s0, z0 = df.quantize(data, "dql")
    assert not np.array_equal((q - z) * s, (q0 - z0) * s0), how
