"""The MatMulIntegerToFloat catalogue: one function per fixed case, each returning its Config (data drawn by kind,
config.py) or (Config, data sets) for data written out here; the case is test_matmulintegertofloat_<name>."""

from __future__ import annotations

import numpy as np

from generator.families.matmul_integer.entries import INT32_K, int32_ends_inputs
from generator.families.matmul_integer_to_float.config import I8, U8, Config
from generator.family import Catalogue

CATALOGUE = Catalogue()


def _type_pairs() -> None:
    """Every A / B type pair T1 x T2 allow, zero points present (drawn, then at their ends) and absent."""
    for a in (U8, I8):
        for b in (U8, I8):
            CATALOGUE.add(f"a_{a}_b_{b}", lambda a=a, b=b: Config(f"a_{a}_b_{b}", a_type=a, b_type=b))
            CATALOGUE.add(f"a_{a}_b_{b}_no_zero_points", lambda a=a, b=b: Config(
                f"a_{a}_b_{b}_no_zero_points", a_type=a, b_type=b, a_zp="absent", b_zp="absent"))


_type_pairs()


@CATALOGUE
def zero_points_one_element():
    """Scales and zero points of shape [1] (per tensor: 'a scalar or a 1-D tensor')."""
    return Config("zero_points_one_element", a_zp="one", a_scale="one", b_zp="one", b_scale="one")


@CATALOGUE
def b_zero_point_only():
    """a_zero_point omitted by the empty name, b_zero_point given."""
    return Config("b_zero_point_only", a_type=I8, a_zp="absent")


@CATALOGUE
def b_per_column():
    """b_scale and b_zero_point per column of B ([N]: 'equal to the number of columns of input B')."""
    return Config("b_per_column", b_zp="column", b_scale="column")


@CATALOGUE
def b_scale_per_column_only():
    return Config("b_scale_per_column_only", a_type=I8, b_type=U8, b_scale="column")


@CATALOGUE
def b_zero_point_per_column_only():
    return Config("b_zero_point_per_column_only", b_type=U8, b_zp="column")


@CATALOGUE
def a_per_k():
    """a_scale and a_zero_point of K elements ('equal to the number of columns of input A') [READING_A_SCALE]."""
    return Config("a_per_k", a_zp="k", a_scale="k")


@CATALOGUE
def a_scale_per_k_only():
    return Config("a_scale_per_k_only", a_type=I8, a_scale="k", b_scale="column", b_zp="column")


@CATALOGUE
def bias():
    """bias [N] ('1D input tensor, whose dimension is same as B's last dimension')."""
    return Config("bias", bias=True)


@CATALOGUE
def bias_per_column():
    return Config("bias_per_column", a_type=I8, b_type=I8, b_zp="column", b_scale="column", bias=True)


@CATALOGUE
def bias_no_zero_points():
    return Config("bias_no_zero_points", a_zp="absent", b_zp="absent", bias=True)


@CATALOGUE
def float16():
    """T3 float16: scales, bias and Y in float16."""
    return Config("float16", t3="float16")


@CATALOGUE
def float16_per_column_bias():
    return Config("float16_per_column_bias", t3="float16", b_zp="column", b_scale="column", bias=True)


@CATALOGUE
def float16_a_int8_b_uint8():
    return Config("float16_a_int8_b_uint8", t3="float16", a_type=I8, b_type=U8, a_zp="absent")


@CATALOGUE
def float16_per_k():
    return Config("float16_per_k", t3="float16", a_zp="k", a_scale="k", bias=True)


@CATALOGUE
def batch_3d():
    return Config("batch_3d", a_shape=(2, 3, 5), b_shape=(2, 5, 4))


@CATALOGUE
def batch_broadcast():
    """Batch dimensions broadcast as numpy.matmul's: [2, 1, M, K] x [3, K, N] -> [2, 3, M, N]."""
    return Config("batch_broadcast", a_shape=(2, 1, 3, 5), b_shape=(3, 5, 4), b_scale="column", bias=True)


@CATALOGUE
def a_3d_b_2d():
    """The usual transformer shape: activations [batch, sequence, K] by weights [K, N]."""
    return Config("a_3d_b_2d", a_shape=(2, 3, 5), b_shape=(5, 4), b_zp="column", b_scale="column", bias=True)


@CATALOGUE
def a_2d_b_3d():
    return Config("a_2d_b_3d", a_shape=(3, 5), b_shape=(2, 5, 4), a_type=I8, b_type=I8)


@CATALOGUE
def b_3d_per_column():
    """A batched B [2, K, N] with b_zero_point and b_scale [N] (the text's 1-D form, whatever B's rank)."""
    return Config("b_3d_per_column", a_shape=(2, 3, 5), b_shape=(2, 5, 4), b_zp="column", b_scale="column")


@CATALOGUE
def k_0():
    """K = 0: every Y element is the empty sum 0 (+ bias)."""
    return Config("k_0", a_shape=(3, 0), b_shape=(0, 4), bias=True, kinds=("random",))


@CATALOGUE
def k_1():
    return Config("k_1", a_shape=(3, 1), b_shape=(1, 4))


@CATALOGUE
def k_odd():
    """K = 33: past two whole vectors of 16 with a tail of one."""
    return Config("k_odd", a_shape=(2, 33), b_shape=(33, 3), b_zp="column", b_scale="column")


@CATALOGUE
def u8_s8_int16_pairs():
    """uint8 x int8 raw extremes (config.py "pairs"): the int16 pairs of VPMADDUBSW saturate (onnxruntime#16105)."""
    return Config("u8_s8_int16_pairs", a_shape=(2, 16), b_shape=(16, 3), kinds=("pairs", "pairs"))


@CATALOGUE
def u8_s8_int16_pairs_odd_k():
    return Config("u8_s8_int16_pairs_odd_k", a_shape=(2, 17), b_shape=(17, 3), a_zp="absent",
                  kinds=("pairs", "random"))


@CATALOGUE
def int32_ends():
    """Integer sums at int32's ends exactly (defined) and, in the probe, one beyond each end (undefined:
    READING_ACC_INT32); matmul_integer's inputs, scales 2**-12 and 2**-10."""
    cfg = Config("int32_ends", a_shape=(1, INT32_K), b_shape=(INT32_K, 2), a_type=U8, b_type=U8, b_zp="column")
    sets = []
    for beyond in (False, True):
        a, b, za, zb = int32_ends_inputs(beyond)
        sets.append([a, b, np.float32(2.0 ** -12), np.float32(2.0 ** -10), za, zb])
    return cfg, sets


def fixed(name: str):
    """A catalogue entry as (Config, data sets or None)."""
    made = CATALOGUE[name]()
    return made if isinstance(made, tuple) else (made, None)
