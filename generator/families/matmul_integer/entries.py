"""The MatMulInteger catalogue (spec.CATALOGUE): one function per fixed case, each returning its MM (data sets drawn
as MM.data says, data.py) or (MM, data sets) for data written out here; the case is test_matmulinteger_<name>."""

from __future__ import annotations

import numpy as np

from generator import axes
from generator.families.matmul_integer.spec import CATALOGUE, I8, MM, U8, feed


@CATALOGUE
def schema_example():
    """onnx's MatMulInteger example (onnx/backend/test/case/node/matmulinteger.py): A 4x3 uint8, a_zero_point 12,
    B 3x2 uint8, b_zero_point 0."""
    mm = MM(a_shape=(4, 3), b_shape=(3, 2), data="example")
    a = np.array([[11, 7, 3], [10, 6, 2], [9, 5, 1], [8, 4, 0]], np.uint8)
    b = np.array([[1, 4], [2, 5], [3, 6]], np.uint8)
    return mm, [feed(mm, a, b, np.array(12, np.uint8), np.array(0, np.uint8))]


def _type_pairs() -> None:
    """Every A / B type pair T1 x T2 allows, zero points at both ends of their types (the corners in turn)."""
    for a in (U8, I8):
        for b in (U8, I8):
            CATALOGUE.add(f"a_{a}_b_{b}", lambda t=(a, b): MM(types=t, data="ends"))
            CATALOGUE.add(f"a_{a}_b_{b}_no_zero_points", lambda t=(a, b): MM(types=t, a_zp="absent", b_zp="absent"))


_type_pairs()


@CATALOGUE
def a_zero_point_only():
    return MM(types=(I8, U8), b_zp="absent")


@CATALOGUE
def b_zero_point_only():
    """a_zero_point omitted by the empty name, b_zero_point given."""
    return MM(types=(U8, I8), a_zp="absent")


@CATALOGUE
def zero_points_one_element():
    """Zero points of shape [1] [READING_ONE_ELEMENT]."""
    return MM(types=(U8, I8), a_zp="one", b_zp="one")


@CATALOGUE
def a_zero_point_per_row():
    """A 2-D A [M, K] with an M-element a_zero_point [a_zero_point: "per row quantization"]."""
    return MM(a_shape=(4, 3), b_shape=(3, 5), a_zp="row")


@CATALOGUE
def a_zero_point_per_row_square():
    """M = K: a per-row zero point subtracted along K (matmul_integer.a_zero_point_along_k) runs and differs."""
    return MM(a_shape=(4, 4), b_shape=(4, 3), types=(I8, U8), a_zp="row")


@CATALOGUE
def a_zero_point_per_row_nd():
    """An N-D A [D1, M, K] with a_zero_point [D1, M, 1]."""
    return MM(a_shape=(2, 3, 4), b_shape=(2, 4, 5), types=(U8, I8), a_zp="row_nd")


@CATALOGUE
def b_zero_point_per_column():
    """A 2-D B [K, N] with an N-element b_zero_point [b_zero_point: "per col quantization"]."""
    return MM(a_shape=(3, 4), b_shape=(4, 5), types=(U8, I8), b_zp="column")


@CATALOGUE
def b_zero_point_per_column_square():
    """K = N: a per-column zero point subtracted per row (matmul_integer.b_zero_point_along_k) runs and differs."""
    return MM(a_shape=(3, 4), b_shape=(4, 4), b_zp="column")


@CATALOGUE
def b_zero_point_per_column_nd():
    """An N-D B [D1, K, N] with b_zero_point [D1, 1, N]."""
    return MM(a_shape=(2, 3, 4), b_shape=(2, 4, 5), types=(I8, I8), b_zp="column_nd")


@CATALOGUE
def per_row_and_per_column():
    return MM(a_shape=(4, 4), b_shape=(4, 4), types=(U8, I8), a_zp="row", b_zp="column")


@CATALOGUE
def batch_3d():
    return MM(a_shape=(2, 3, 4), b_shape=(2, 4, 5))


@CATALOGUE
def batch_broadcast():
    """Batch dimensions broadcast as numpy.matmul's: [2, 1, M, K] x [3, K, N] -> [2, 3, M, N]."""
    return MM(a_shape=(2, 1, 3, 4), b_shape=(3, 4, 5), types=(U8, I8))


@CATALOGUE
def a_3d_b_2d():
    return MM(a_shape=(3, 2, 4), b_shape=(4, 5), types=(I8, U8))


@CATALOGUE
def a_2d_b_3d():
    return MM(a_shape=(2, 4), b_shape=(3, 4, 5), types=(I8, I8))


@CATALOGUE
def a_2d_b_batched():
    """A 2-D A against a batched B whose batch has a broadcast 1: [M, K] x [2, 1, K, N] -> [2, 1, M, N]
    (numpy.matmul)."""
    return MM(a_shape=(3, 4), b_shape=(2, 1, 4, 5), types=(U8, I8))


@CATALOGUE
def a_batched_b_2d():
    """The other order, the 1 leading: [1, 2, M, K] x [K, N] -> [1, 2, M, N]."""
    return MM(a_shape=(1, 2, 3, 4), b_shape=(4, 5), types=(I8, U8))


@CATALOGUE
def k_0():
    """K = 0: every Y element is the empty sum 0, whatever the zero points (numpy.matmul of [M, 0] by [0, N])."""
    return MM(a_shape=(3, 0), b_shape=(0, 4), types=(U8, I8))


@CATALOGUE
def m_0():
    """M = 0: an empty Y [0, N]."""
    return MM(a_shape=(0, 4), b_shape=(4, 3))


@CATALOGUE
def n_0():
    return MM(a_shape=(3, 4), b_shape=(4, 0), types=(I8, I8))


@CATALOGUE
def a_1d():
    """A 1-D A [K] is a row; its dimension is removed from Y [N]."""
    return MM(a_shape=(4,), b_shape=(4, 3))


@CATALOGUE
def b_1d():
    """A 1-D B [K] is a column; Y is [M]."""
    return MM(a_shape=(3, 4), b_shape=(4,), types=(U8, I8))


@CATALOGUE
def both_1d():
    """Two 1-D operands: Y is a scalar (0-D)."""
    return MM(a_shape=(5,), b_shape=(5,), types=(I8, U8))


@CATALOGUE
def k_1():
    return MM(a_shape=(3, 1), b_shape=(1, 4), types=(I8, I8))


def _far_products() -> None:
    """Every type pair with both zero points at the ends and each element at the far end: products of 255 * 255 (the
    text: "The production MUST never overflow", e.g. in int16), sums far beyond int16."""
    for a in (U8, I8):
        for b in (U8, I8):
            CATALOGUE.add(f"far_products_a_{a}_b_{b}", lambda t=(a, b): MM(a_shape=(2, 9), b_shape=(9, 3), types=t,
                                                                             data="far"))


_far_products()


@CATALOGUE
def u8_s8_int16_pairs():
    """uint8 x int8 raw extremes, a = 255 and b's columns at the ends in blocks of 4 along K (data.py, "pairs"):
    the int16 pairs of K indices 2j, 2j + 1 that x86 VPMADDUBSW adds saturate (onnxruntime#16105); K odd: the last
    index pairs with the kernel's zero padding."""
    return MM(a_shape=(2, 16), b_shape=(16, 3), types=(U8, I8), data="pairs")


@CATALOGUE
def u8_s8_int16_pairs_odd_k():
    return MM(a_shape=(2, 17), b_shape=(17, 3), types=(U8, I8), a_zp="absent", data="pairs")


@CATALOGUE
def sum_beyond_float32():
    """An exact sum 270 * 65025 + 1, odd and beyond 2**24: no float32 holds it (K = 272, a multiple of 16: no K
    tail)."""
    return MM(a_shape=(1, 272), b_shape=(272, 2), data="float32")


INT32_K = 33027  # 33025 * 65025 + 209 * 158 = 2**31 - 1: the sum reaches int32's end in K products of 8-bit values


def int32_ends_inputs(beyond: bool) -> tuple:
    """A [1, K] uint8 (a_zero_point 0), B [K, 2] uint8 with b_zero_point [0, 255]: column 0 sums +255 * 255 products,
    column 1 -255 * 255 ones: Y = [2**31 - 1, -2**31] exactly (beyond: one more product each: both leave int32)."""
    a = np.zeros((1, INT32_K), np.uint8)
    b = np.zeros((INT32_K, 2), np.uint8)
    b[:, 1] = 255  # b - 255 = 0 in column 1
    a[0, :33025], b[:33025, 0], b[:33025, 1] = 255, 255, 0  # +-65025
    a[0, 33025], b[33025, 0], b[33025, 1] = 209, 158, 255 - 158  # +-33022
    if beyond:  # INT32_MAX + 2 and INT32_MIN - 1 (A is shared: one a of 2 times +1 / -1)
        a[0, 33026], b[33026, 0], b[33026, 1] = 2, 1, 254
    else:  # INT32_MIN needs one more: -(2**31 - 1) - 1
        a[0, 33026], b[33026, 0], b[33026, 1] = 1, 0, 254
    return a, b, np.array(0, np.uint8), np.array([0, 255], np.uint8)


@CATALOGUE
def int32_ends():
    """Sums at int32's ends exactly (defined: "may overflow if and only if in 32 bits") and, in the probe, one
    beyond each end (undefined [reference: UNDEF_ACC_INT32])."""
    mm = MM(a_shape=(1, INT32_K), b_shape=(INT32_K, 2), a_zp="tensor", b_zp="column", data="int32_ends")
    return mm, [feed(mm, *int32_ends_inputs(False)), feed(mm, *int32_ends_inputs(True))]


# the vector-tail axis: K around vector widths, the one nonzero product last; N around widths, the decisive column last
TAIL_KS = (1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33)
TAIL_NS = (1, 5, 9, 17)


@CATALOGUE
def vector_tail():
    """One model of symbolic K and N: data sets for K in TAIL_KS (N 3) whose only nonzero product is the last
    (a K loop that drops its remainder: matmul_integer.k_tail<W>_dropped), and for N in TAIL_NS (K 5) with a
    per-column b_zero_point whose last column alone differs from the others."""
    dims = {"A": (2, "K"), "B": ("K", "N"), "b_zero_point": ("N",)}
    mm = MM(a_shape=(2, 5), b_shape=(5, 3), types=(U8, I8), a_zp="tensor", b_zp="column", data="tail", dims=dims)
    sets = []
    for k in TAIL_KS:
        a = axes.with_tail(np.full(k, 7, np.uint8), [200], k)
        a = np.stack([a, a])
        b = np.zeros((k, 3), np.int8)
        b[-1] = [100, -100, 55]
        sets.append(feed(mm, a, b, np.array(7, np.uint8), np.zeros(3, np.int8)))
    for n in TAIL_NS:
        a = np.array([[9, 8, 7, 6, 5], [1, 2, 3, 4, 255]], np.uint8)
        b = np.full((5, n), 3, np.int8)
        zb = axes.with_tail(np.full(n, 3, np.int8), [-100], n)
        sets.append(feed(mm, a, b, np.array(0, np.uint8), zb))
    return mm, sets


def fixed(name: str):
    """A catalogue entry as (MM, data sets or None)."""
    made = CATALOGUE[name]()
    return made if isinstance(made, tuple) else (made, None)

