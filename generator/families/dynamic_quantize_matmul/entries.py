"""The DynamicQuantizeMatMul catalogue: one function per fixed case, each returning its Config (data sets drawn by
kind, config.py); the case is test_dynamicquantizematmul_<name>."""

from __future__ import annotations

from generator.families.dynamic_quantize_matmul.config import I8, U8, Config
from generator.family import Catalogue

CATALOGUE = Catalogue()


@CATALOGUE
def b_int8():
    """B int8 with a zero point; A quantized as DynamicQuantizeLinear does [READING_A_QUANT]."""
    return Config("b_int8")


@CATALOGUE
def b_uint8():
    return Config("b_uint8", b_type=U8)


@CATALOGUE
def b_int8_no_zero_point():
    """b_zero_point left out ('default value is 0'): symmetric int8 weights, quantize_dynamic's default."""
    return Config("b_int8_no_zero_point", b_zp="absent")


@CATALOGUE
def b_uint8_no_zero_point():
    return Config("b_uint8_no_zero_point", b_type=U8, b_zp="absent")


@CATALOGUE
def b_one_element():
    """b_scale and b_zero_point of shape [1] (per tensor)."""
    return Config("b_one_element", b_zp="one", b_scale="one")


@CATALOGUE
def b_per_column():
    """b_scale and b_zero_point per column of B ([N]: 'equal to the number of columns of input B')."""
    return Config("b_per_column", b_zp="column", b_scale="column")


@CATALOGUE
def b_scale_per_column_symmetric():
    """Per-column b_scale, no zero point: quantize_dynamic's per_channel int8 weights."""
    return Config("b_scale_per_column_symmetric", b_zp="absent", b_scale="column")


@CATALOGUE
def b_uint8_per_column():
    return Config("b_uint8_per_column", b_type=U8, b_zp="column", b_scale="column")


@CATALOGUE
def bias():
    """bias [N] ('1D input tensor, whose dimension is same as B's last dimension')."""
    return Config("bias", bias=True)


@CATALOGUE
def bias_per_column():
    return Config("bias_per_column", b_zp="column", b_scale="column", bias=True)


@CATALOGUE
def bias_uint8_no_zero_point():
    return Config("bias_uint8_no_zero_point", b_type=U8, b_zp="absent", bias=True)


@CATALOGUE
def a_3d_b_2d():
    """Activations [batch, sequence, K] by weights [K, N]: one quantization for the whole of A."""
    return Config("a_3d_b_2d", a_shape=(2, 3, 5), b_shape=(5, 4), b_zp="absent", b_scale="column", bias=True)


@CATALOGUE
def batch_3d():
    return Config("batch_3d", a_shape=(2, 3, 5), b_shape=(2, 5, 4))


@CATALOGUE
def batch_broadcast():
    """Batch dimensions broadcast as numpy.matmul's: [2, 1, M, K] x [3, K, N] -> [2, 3, M, N]."""
    return Config("batch_broadcast", a_shape=(2, 1, 3, 5), b_shape=(3, 5, 4), b_zp="column", b_scale="column",
                  bias=True)


@CATALOGUE
def k_1():
    return Config("k_1", a_shape=(3, 1), b_shape=(1, 4), bias=True)


@CATALOGUE
def k_odd():
    """K = 33: past two whole vectors of 16 with a tail of one."""
    return Config("k_odd", a_shape=(2, 33), b_shape=(33, 3), b_zp="column", b_scale="column")


@CATALOGUE
def k_0():
    """K = 0: A is empty, so DynamicQuantizeLinear of it is undefined (ReduceMin of no element): the probe."""
    return Config("k_0", a_shape=(3, 0), b_shape=(0, 4), bias=True, kinds=("random",))


@CATALOGUE
def u8_s8_int16_pairs():
    """A all equal (q = 255) by B's raw int8 extremes: the int16 pairs of VPMADDUBSW saturate (onnxruntime#16105)."""
    return Config("u8_s8_int16_pairs", a_shape=(2, 16), b_shape=(16, 3), kinds=("pairs", "grid"))


@CATALOGUE
def a_all_positive():
    """A > 0 on the quantization grid: the range widened to 0 (zero point 0), uint8's full resolution."""
    return Config("a_all_positive", kinds=("positive", "positive"))


@CATALOGUE
def a_all_negative():
    """A < 0 on the quantization grid: zero point 255."""
    return Config("a_all_negative", kinds=("negative", "negative"))


@CATALOGUE
def a_wide_range():
    """A of magnitudes 2**-10 .. 2**10: most of it quantizes to the zero point (qerr: the reading's allowance)."""
    return Config("a_wide_range", b_zp="column", b_scale="column", bias=True, kinds=("wide", "wide", "random"))


@CATALOGUE
def a_zeros():
    """A all zeros: DynamicQuantizeLinear's scale is 0 (undefined: the probe)."""
    return Config("a_zeros", bias=True, kinds=("zeros",))


@CATALOGUE
def a_nan():
    """One NaN in A: DynamicQuantizeLinear's min / max are NaN (undefined: the probe)."""
    return Config("a_nan", kinds=("nan",))


def fixed(name: str) -> Config:
    return CATALOGUE[name]()
