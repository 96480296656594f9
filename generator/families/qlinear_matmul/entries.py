"""The QLinearMatMul catalogue: one function per fixed case, returning its MatMul (CATALOGUE; PROBES: data the text
leaves undefined, whole data sets go to probe/); the case is test_qlinearmatmul_<function name>."""

from __future__ import annotations

from generator.family import Catalogue
from generator.families.qlinear_matmul.mm import MatMul
from generator.reference.qlinear_matmul import FLOAT8_TYPES, INT_TYPES

CATALOGUE = Catalogue()
PROBES = Catalogue()


def _types() -> None:
    """Every (a, b, y) triple of int8 / uint8 [T1, T2, T3], at opset 10 (QLinearMatMul-10) and 21 (-21), zero points
    at both ends of their types and the middle in turn."""
    for opset in (10, 21):
        for a in INT_TYPES:
            for b in INT_TYPES:
                for y in INT_TYPES:
                    CATALOGUE.add(f"types_{a}_{b}_{y}_opset{opset}",
                                  lambda a=a, b=b, y=y, opset=opset: MatMul(types=(a, b, y), zero_points="ends",
                                                                             opset=opset))


_types()


@CATALOGUE
def saturate_both_ends():
    """Outputs beyond both ends of the output type saturate [summary: y = saturate(...)] (onnx#7835)."""
    return MatMul(types=("int8", "int8", "int8"), scales="saturate")


@CATALOGUE
def saturate_uint8():
    return MatMul(scales="saturate")


@CATALOGUE
def ties_pow2():
    """Power-of-two scales: acc * c on half-integers, rounded to even [summary: ties to even]."""
    return MatMul(a_shape=(4, 6), b_shape=(6, 4), types=("uint8", "int8", "uint8"), scales="pow2", spread=6)


@CATALOGUE
def ties_sixth():
    """A multiplier 1/6 (no float): ties where acc = 3 mod 6, off the tie in float arithmetic."""
    return MatMul(a_shape=(4, 6), b_shape=(6, 4), types=("int8", "int8", "int8"), scales="sixth", spread=6)


@CATALOGUE
def zero_points_zero():
    return MatMul(types=("int8", "int8", "int8"), zero_points="zero")


@CATALOGUE
def k_1():
    return MatMul(a_shape=(3, 1), b_shape=(1, 4))


@CATALOGUE
def k_long():
    """K = 67: pair sums of extreme raw products leave int16 (onnxruntime#16105's kernel); K odd."""
    return MatMul(a_shape=(2, 67), b_shape=(67, 3), types=("uint8", "int8", "uint8"), zero_points="ends")


@CATALOGUE
def m_1_n_1():
    return MatMul(a_shape=(1, 5), b_shape=(5, 1))


@CATALOGUE
def a_1d():
    """a of shape [K]: promoted to [1, K], the 1 removed from y [summary: numpy.matmul]."""
    return MatMul(a_shape=(5,), b_shape=(5, 3))


@CATALOGUE
def b_1d():
    return MatMul(a_shape=(3, 5), b_shape=(5,))


@CATALOGUE
def both_1d():
    """Two vectors: a scalar y (numpy.matmul's dot product)."""
    return MatMul(a_shape=(6,), b_shape=(6,), types=("int8", "uint8", "int8"))


@CATALOGUE
def a_1d_batched_b():
    return MatMul(a_shape=(4,), b_shape=(2, 4, 3))


@CATALOGUE
def batch_3d():
    """The ONNX example's rank: [2, M, K] x [2, K, N]."""
    return MatMul(a_shape=(2, 2, 4), b_shape=(2, 4, 3))


@CATALOGUE
def batch_4d():
    return MatMul(a_shape=(2, 3, 2, 4), b_shape=(2, 3, 4, 2), types=("int8", "int8", "uint8"))


@CATALOGUE
def broadcast_b_2d():
    """b without batch dimensions against a batched a."""
    return MatMul(a_shape=(3, 2, 4), b_shape=(4, 3))


@CATALOGUE
def broadcast_leading():
    return MatMul(a_shape=(1, 3, 2, 4), b_shape=(2, 1, 4, 3))


@CATALOGUE
def broadcast_trailing():
    """b's batch [2, 1] against a's [3]: the broadcast axis trails (qlinear_matmul.batch_broadcast_modulo)."""
    return MatMul(a_shape=(3, 2, 4), b_shape=(2, 1, 4, 3))


@CATALOGUE
def a_2d_b_batched():
    """A 2-D a against a batched b whose batch has a broadcast 1: [M, K] x [2, 1, K, N] -> [2, 1, M, N]
    [summary: numpy.matmul]."""
    return MatMul(a_shape=(3, 4), b_shape=(2, 1, 4, 5), types=("uint8", "int8", "uint8"))


@CATALOGUE
def a_batched_b_2d():
    """The other order, the 1 leading: [1, 2, M, K] x [K, N] -> [1, 2, M, N]."""
    return MatMul(a_shape=(1, 2, 3, 4), b_shape=(4, 5), types=("int8", "int8", "int8"))


@CATALOGUE
def k_0():
    """K = 0: acc is the empty sum 0 whatever the zero points (no K * a_zero_point * b_zero_point term), so y is
    y_zero_point everywhere [summary: numpy.matmul, y = saturate((x / y_scale) + y_zero_point)]."""
    return MatMul(a_shape=(3, 0), b_shape=(0, 4), types=("uint8", "int8", "uint8"))


@CATALOGUE
def m_0():
    """M = 0: an empty y [0, N]."""
    return MatMul(a_shape=(0, 4), b_shape=(4, 3))


@CATALOGUE
def n_0():
    """N = 0: an empty y [M, 0] (int8 throughout: a triple onnxruntime implements)."""
    return MatMul(a_shape=(3, 4), b_shape=(4, 0), types=("int8", "int8", "int8"))


@CATALOGUE
def per_row_a():
    """a_scale and a_zero_point an M vector [summary: per row for 'a']."""
    return MatMul(a_shape=(4, 4), b_shape=(4, 3), a_quant="per_row")


@CATALOGUE
def per_row_a_nd():
    """[D1, M, 1] per row of a batched a."""
    return MatMul(a_shape=(2, 3, 4), b_shape=(2, 4, 3), a_quant="per_row_nd")


@CATALOGUE
def per_column_b():
    """b_scale and b_zero_point an N vector (reference READING_PER_COLUMN)."""
    return MatMul(a_shape=(3, 4), b_shape=(4, 5), b_quant="per_column", types=("uint8", "int8", "uint8"))


@CATALOGUE
def per_column_b_nd():
    return MatMul(a_shape=(2, 3, 4), b_shape=(2, 4, 5), b_quant="per_column_nd", types=("uint8", "int8", "uint8"))


@CATALOGUE
def per_row_per_column():
    return MatMul(a_shape=(3, 3), b_shape=(3, 4), a_quant="per_row", b_quant="per_column", scales="pow2")


@CATALOGUE
def per_row_nd_2d():
    """A 2-D a with a_scale [M, 1] (the N-D form without batch dimensions, READING_PER_COLUMN)."""
    return MatMul(a_shape=(3, 4), b_shape=(4, 2), a_quant="per_row_nd")


@CATALOGUE
def scales_float16():
    """QLinearMatMul-21's TS: float16 scales."""
    return MatMul(scale_type="float16", types=("uint8", "int8", "uint8"))


@CATALOGUE
def scales_bfloat16():
    return MatMul(scale_type="bfloat16", types=("int8", "int8", "int8"))


@PROBES
def scales_bad():
    """y_scale 0, negative, inf, NaN, -0: the formula divides by y_scale (reference UNDEF_SCALE)."""
    return MatMul(scales="bad")


def _float8() -> None:
    """float8 a, b and y of each float8 type at opset 21 [T1, T2, T3], judged on reference READING_FLOAT8 (exact x, y
    rounded half to even to the type and saturated, as QuantizeLinear-21): outputs over half the finite range, then
    beyond it (saturated)."""
    for t in FLOAT8_TYPES:
        CATALOGUE.add(f"float8_{t.removeprefix('float8')}", lambda t=t: MatMul(types=(t,) * 3))
        CATALOGUE.add(f"float8_{t.removeprefix('float8')}_saturate", lambda t=t: MatMul(types=(t,) * 3,
                                                                                        scales="saturate"))


_float8()


@CATALOGUE
def float8_mixed():
    """uint8 a, float8e5m2 b, uint8 y: a float8 operand with an integer y (READING_FLOAT8)."""
    return MatMul(types=("uint8", "float8e5m2", "uint8"))


@CATALOGUE
def float8_zero_points():
    """Non-zero float8 zero points ('usually not used', the formula the same [QuantizeLinear-21]), per row and per
    column, a float8 y: the zero points subtracted from a and b and added to y before its one rounding."""
    return MatMul(a_shape=(3, 4), b_shape=(4, 2), types=("float8e4m3fn", "float8e5m2", "float8e4m3fn"),
                  a_quant="per_row", b_quant="per_column", zero_points="float8")


@PROBES
def float8_nonfinite():
    """A NaN (float8e5m2: then +Inf) in a (reference UNDEF_FLOAT8): no reading gives what it dequantizes to."""
    return MatMul(types=("float8e5m2", "float8e4m3fn", "float8e4m3fn"), scales="nonfinite")

