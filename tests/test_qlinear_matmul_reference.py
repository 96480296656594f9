"""The QLinearMatMul reference (generator/reference/qlinear_matmul.py) against the schema text's own example (the
data of onnx's backend test case node/qlinearmatmul.py, after onnx PR #7868), an exhaustive enumeration of uint8 x
uint8 products against exact integer arithmetic written here, numpy.matmul's shape rules, per-row / per-column
quantization against per-tensor calls row by row, and what the text leaves undefined or rules out."""

from __future__ import annotations

import functools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from generator import dtypes
from generator.reference import qlinear_matmul as ref

F32 = np.float32


def _onnx_example(q: type) -> tuple[list[np.ndarray], np.ndarray]:
    """onnx/backend/test/case/node/qlinearmatmul.py, 2-D: inputs and expected y (onnx 1.23.2, the fixed data)."""
    off = 127 if q is np.int8 else 0
    a = (np.array([[208, 236, 0, 238], [3, 214, 255, 29]]) - off).astype(q)
    b = (np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]]) - off).astype(q)
    y = np.array([[41, -12, -9], [1, -75, -128]] if q is np.int8 else [[168, 115, 255], [1, 66, 151]]).astype(q)
    return [a, F32(0.0066), np.array(113 - off, q), b, F32(0.00705), np.array(114 - off, q), F32(0.0107),
            np.array(118 - off, q)], y


@pytest.mark.parametrize("q", [np.uint8, np.int8])
def test_the_schema_example_2d_and_3d(q):
    inputs, y = _onnx_example(q)
    out = ref.qlinear_matmul(*inputs)
    assert out.defined and out.outputs[0].dtype == q and np.array_equal(out.outputs[0], y)
    batched = list(inputs)
    batched[0], batched[3] = np.stack([inputs[0]] * 2), np.stack([inputs[3]] * 2)
    assert np.array_equal(ref.qlinear_matmul(*batched).outputs[0], np.stack([y] * 2))


@functools.lru_cache(maxsize=None)
def _ratio(xs: float, ws: float, ys: float) -> Fraction:
    return Fraction(xs) * Fraction(ws) / Fraction(ys)


def _exact(acc: int, xs: float, ws: float, ys: float, yz: int, lo: int, hi: int) -> int:
    """saturate(round_half_even(acc * xs * ws / ys) + yz), in Fractions: the text's formula on exact values."""
    v = _ratio(xs, ws, ys)
    q, r = divmod(acc * v.numerator, v.denominator)  # acc * c = q + r / den, 0 <= r < den
    q += 2 * r > v.denominator or (2 * r == v.denominator and q % 2 == 1)  # ties to even
    return max(lo, min(hi, q + yz))


def test_every_uint8_pair_against_exact_arithmetic():
    """a [256, 1] x b [1, 256]: every (a, b) pair of uint8 once, K = 1, ties included (power-of-two scales put
    acc * c on halves), against _exact."""
    a = np.arange(256, dtype=np.uint8).reshape(256, 1)
    b = np.arange(256, dtype=np.uint8).reshape(1, 256)
    xs, ws, ys, az, bz, yz = 2.0**-4, 2.0**-5, 2.0**-3, 100, 37, 128
    y = ref.qlinear_matmul(a, F32(xs), np.uint8(az), b, F32(ws), np.uint8(bz), F32(ys), np.uint8(yz)).outputs[0]
    acc = (np.arange(256) - az)[:, None] * (np.arange(256) - bz)[None, :]
    # c = 2**-6: acc / 64 ties where acc = 32 mod 64
    want = np.array([[_exact(int(v), xs, ws, ys, yz, 0, 255) for v in row] for row in acc.tolist()])
    assert (acc % 64 == 32).sum() > 500 and np.array_equal(y, want)


def test_random_scales_and_k_against_exact_arithmetic():
    rng = np.random.default_rng(5)
    for _ in range(20):
        k = int(rng.integers(1, 40))
        a = rng.integers(-128, 128, (3, k)).astype(np.int8)
        b = rng.integers(0, 256, (k, 4)).astype(np.uint8)
        xs, ws, ys = (float(F32(v)) for v in rng.uniform(0.001, 0.1, 3))
        az, bz, yz = int(rng.integers(-128, 128)), int(rng.integers(0, 256)), int(rng.integers(-128, 128))
        y = ref.qlinear_matmul(a, F32(xs), np.int8(az), b, F32(ws), np.uint8(bz), F32(ys), np.int8(yz)).outputs[0]
        acc = (a.astype(np.int64) - az) @ (b.astype(np.int64) - bz)
        want = [[_exact(v, xs, ws, ys, yz, -128, 127) for v in row] for row in acc.tolist()]
        assert np.array_equal(y, want)


@pytest.mark.parametrize("a_shape, b_shape", [((4,), (4, 3)), ((2, 4), (4,)), ((4,), (4,)), ((4,), (2, 4, 3)),
                                              ((2, 1, 2, 4), (3, 4, 2)), ((3, 2, 4), (4, 5)), ((1, 2, 4), (2, 4, 1))])
def test_shapes_are_numpy_matmuls(a_shape, b_shape):
    """numpy.matmul's promotion of 1-D operands and batch broadcasting; the values those of matmul on the deltas."""
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 256, a_shape).astype(np.uint8), rng.integers(0, 256, b_shape).astype(np.uint8)
    y = ref.qlinear_matmul(a, F32(1), np.uint8(3), b, F32(1), np.uint8(5), F32(2.0**20), np.uint8(0)).outputs[0]
    acc = np.matmul(a.astype(np.int64) - 3, b.astype(np.int64) - 5)
    assert y.shape == acc.shape == ref.output_shape(a_shape, b_shape)
    assert np.array_equal(y, np.clip(np.rint(acc / 2.0**20), 0, 255))  # |acc / 2**20| < 1/4: exact, no tie


def test_per_row_and_per_column_are_per_tensor_row_by_row():
    """a_scale / a_zero_point per row ([M] and [..., M, 1]), b's per column ([N], [..., 1, N]): each output element
    is the per-tensor result of its row's and column's parameters."""
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (2, 3, 5)).astype(np.int8)
    b = rng.integers(-128, 128, (2, 5, 4)).astype(np.int8)
    xs, ws = rng.uniform(0.01, 0.1, (2, 3, 1)).astype(F32), rng.uniform(0.01, 0.1, (2, 1, 4)).astype(F32)
    az, bz = rng.integers(-10, 10, (2, 3, 1)).astype(np.int8), rng.integers(-10, 10, (2, 1, 4)).astype(np.int8)
    ys, yz = F32(0.4), np.int8(-3)
    y = ref.qlinear_matmul(a, xs, az, b, ws, bz, ys, yz).outputs[0]
    for d in range(2):
        for m in range(3):
            for n in range(4):
                one = ref.qlinear_matmul(a[d, m:m + 1], xs[d, m, 0], az[d, m, 0], b[d, :, n:n + 1], ws[d, 0, n],
                                         bz[d, 0, n], ys, yz).outputs[0]
                assert y[d, m, n] == one[0, 0]
    y2 = ref.qlinear_matmul(a[0], xs[0].reshape(3), az[0].reshape(3), b[0], ws[0].reshape(4), bz[0].reshape(4),
                            ys, yz).outputs[0]
    assert np.array_equal(y2, y[0])


def test_scales_of_float16_and_bfloat16_are_their_exact_values():
    a, b = np.array([[7]], np.uint8), np.array([[9]], np.uint8)
    for st in (np.float16, ml_dtypes.bfloat16):
        xs, ws, ys = st(0.1), st(0.3), st(0.05)
        y = ref.qlinear_matmul(a, xs, np.uint8(0), b, ws, np.uint8(0), ys, np.uint8(0)).outputs[0]
        assert y[0, 0] == _exact(63, float(xs), float(ws), float(ys), 0, 0, 255)


def test_undefined_elements():
    u8 = np.uint8
    k = 33026  # K * 255 * 255 > 2**31 - 1
    big = ref.qlinear_matmul(np.full((2, k), 255, u8), F32(1), u8(0), np.full((k, 1), 255, u8), F32(1), u8(0), F32(1),
                             u8(0))
    assert big.reasons == [ref.UNDEF_ACC_INT32] and big.mask().all()
    for bad in (0.0, -1.0, np.inf, np.nan):
        out = ref.qlinear_matmul(np.ones((2, 2), u8), F32(1), u8(0), np.ones((2, 2), u8), F32(1), u8(0), F32(bad),
                                 u8(0))
        assert out.reasons == [ref.UNDEF_SCALE]
    f8 = ml_dtypes.float8_e4m3fn
    for v in (np.nan, np.inf):
        out = ref.qlinear_matmul(np.full((2, 3), v, ml_dtypes.float8_e5m2), F32(1), ml_dtypes.float8_e5m2(0),
                                 np.ones((3, 2), f8), F32(1), f8(0), F32(1), f8(0))
        assert out.reasons == [ref.UNDEF_FLOAT8] and out.outputs[0].shape == (2, 2)


def test_float8_reading_rounds_once_half_to_even_and_saturates():
    """READING_FLOAT8: x exact, a float8 y = x / y_scale + y_zero_point rounded once half to even and saturated
    (QuantizeLinear-21's saturate=1); an integer y as READING_EXACT."""
    f8, e5 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2
    ones = np.ones((3, 2), f8)

    def y(a, ys, yz=f8(0), b=ones, zp=f8(0)):
        out = ref.qlinear_matmul(np.asarray(a, np.float32).astype(np.asarray(zp).dtype), F32(1), zp, b, F32(1),
                                 f8(0) if b.dtype == f8 else np.asarray(0).astype(b.dtype), F32(ys), yz)
        assert out.defined
        return out.outputs[0]

    assert y([[1, 1, 1]], 1).tolist() == [[3, 3]] and y([[1, 1, 1]], 1).dtype == f8
    assert float(y([[16, 1, 0]], 1)[0, 0]) == 16  # 17: the tie between 16 and 18 goes to 16 (even)
    assert float(y([[16, 2, 1]], 1)[0, 0]) == 20  # 19: the tie between 18 and 20 goes to 20
    assert float(y([[448, 448, 448]], 1)[0, 0]) == 448  # 1344 saturates to the finite max, no NaN
    assert float(y([[-448, -448, 0]], 2.0**-4)[0, 0]) == -448
    tiny = y([[-1, 0, 0]], 2.0**12)  # -2**-12 rounds to -0 (e4m3fn's smallest subnormal is 2**-9)
    assert tiny.view(np.uint8)[0, 0] == 0x80
    # zero points: a - 1 and y + 0.5 before the one rounding: (3 - 3) / 1 + 0.5
    assert float(y([[2, 2, 2]], 1, f8(0.5), zp=f8(1))[0, 0]) == 3.5
    # a float8 b, an integer y: (3 - 2) * 0.5 / 0.25 = 2 -> 12; with y_scale 1 the tie 0.5 -> 0 (even) -> 10
    u8 = np.uint8
    out = ref.qlinear_matmul(np.array([[3, 2, 2]], u8), F32(0.5), u8(2), np.ones((3, 1), e5), F32(1), e5(0),
                             F32(0.25), u8(10))
    assert out.outputs[0].tolist() == [[12]]
    out = ref.qlinear_matmul(np.array([[3, 2, 2]], u8), F32(0.5), u8(2), np.ones((3, 1), e5), F32(1), e5(0),
                             F32(1), u8(10))
    assert out.outputs[0].tolist() == [[10]]


@pytest.mark.parametrize("a_shape, b_shape, a_q, b_q", [
    ((), (3, 2), (), ()), ((2, 3), (4, 2), (), ()), ((2, 2, 3), (3, 3, 2), (), ()),
    ((2, 3), (3, 4), (3,), ()),  # a per column
    ((2, 3), (3, 4), (), (3,)),  # b per row
    ((2, 3), (3, 4), (2, 3), ()),  # a_scale as large as a
])
def test_shapes_the_text_rules_out(a_shape, b_shape, a_q, b_q):
    with pytest.raises(ValueError):
        ref.check_shapes([a_shape, a_q, a_q, b_shape, b_q, b_q, (), ()], {}, 21)


def test_scale_and_zero_point_must_share_their_shape():
    with pytest.raises(ValueError, match="same shape"):
        ref.check_shapes([(2, 3), (2,), (), (3, 4), (), (), (), ()], {}, 21)


def _types(*names):
    return [dtypes.get(n) for n in names]


def test_types_by_version():
    ok = _types("uint8", "float", "uint8", "int8", "float", "int8", "float", "uint8")
    ref.validate({}, 10, ok, [2] * 8)
    ref.validate({}, 21, _types("float8e4m3fn", "float16", "float8e4m3fn", "int8", "float16", "int8", "float16",
                                "float8e5m2"), [2] * 8)
    bad = [
        (10, _types("float8e4m3fn", "float", "float8e4m3fn", "int8", "float", "int8", "float", "uint8")),
        (10, _types("uint8", "float16", "uint8", "int8", "float16", "int8", "float16", "uint8")),
        (21, _types("uint8", "float", "uint8", "int8", "float16", "int8", "float", "uint8")),
        (21, _types("uint8", "float", "int8", "int8", "float", "int8", "float", "uint8")),
        (21, _types("int16", "float", "int16", "int8", "float", "int8", "float", "uint8")),
        (21, _types("uint8", "double", "uint8", "int8", "double", "int8", "double", "uint8")),
    ]
    for opset, types in bad:
        with pytest.raises(ValueError):
            ref.validate({}, opset, types, [2] * 8)
    with pytest.raises(ValueError):
        ref.validate({}, 21, ok, [0, 0, 0, 2, 0, 0, 0, 0])
