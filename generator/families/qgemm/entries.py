"""The QGemm catalogue: one function per fixed case, returning its Gemm (CATALOGUE; PROBES: data the text leaves
undefined, whole data sets go to probe/); the case is test_qgemm_<function name>."""

from __future__ import annotations

from generator.family import Catalogue
from generator.families.qgemm.config import Gemm
from generator.reference.qgemm import INT_TYPES

CATALOGUE = Catalogue()
PROBES = Catalogue()


def _types() -> None:
    """Every (A, B, Y) type triple [TA, TB, TY / TYZ]: uint8 / int8 A and B, a uint8, int8 or float32 output, zero
    points at both ends of their types in turn. (onnxruntime 1.32.0 implements six of the twelve: y of A's type, and
    an int8 A with an int8 B; the other entries of the catalogue keep to those six.)"""
    for a in INT_TYPES:
        for b in INT_TYPES:
            for y in INT_TYPES + ("float",):
                CATALOGUE.add(f"types_{a}_{b}_{y}", lambda a=a, b=b, y=y: Gemm(types=(a, b, y), zero_points="ends"))


def _transposes() -> None:
    """transA / transB all four ways [A: (K, M) if transA is non-zero; B: (N, K) if transB], quantized and float,
    M, K, N distinct (a transposition ignored is refused) and square (it gives wrong values)."""
    for ta in (0, 1):
        for tb in (0, 1):
            for y in ("uint8", "float"):
                CATALOGUE.add(f"trans_{ta}{tb}_{y}", lambda ta=ta, tb=tb, y=y: Gemm(
                    m=3, k=4, n=5, trans_a=ta, trans_b=tb, types=("uint8", "int8", y)))
                CATALOGUE.add(f"trans_{ta}{tb}_square_{y}", lambda ta=ta, tb=tb, y=y: Gemm(
                    m=4, k=4, n=4, trans_a=ta, trans_b=tb, types=("int8", "int8", "int8" if y != "float" else y),
                    c_shape=(4,)))


def _alphas() -> None:
    """alpha [alpha: 'Scalar multiplier for the product']: 1 (written), 1/2 (a power of two), 3, -1.5 (negative),
    0 (every y is y_zero_point), with and without C (alpha multiplies C's contribution: READING_FORMULA)."""
    for name, alpha in (("one", 1.0), ("half", 0.5), ("three", 3.0), ("negative", -1.5), ("zero", 0.0),
                        ("tenth", 0.1)):
        for y in ("uint8", "float"):
            CATALOGUE.add(f"alpha_{name}_{y}", lambda alpha=alpha, y=y: Gemm(alpha=alpha, types=("uint8", "uint8", y)))
            CATALOGUE.add(f"alpha_{name}_c_{y}", lambda alpha=alpha, y=y: Gemm(
                alpha=alpha, types=("int8", "int8", "int8" if y != "float" else y), c_shape=(3, 5)))


def _c_shapes() -> None:
    """C's forms [C: 'unidirectional broadcastable to (M, N)']: [M, N], [N], [1, N], [M, 1], [1, 1], [1], a scalar,
    quantized and float."""
    for name, shape in (("mn", (3, 5)), ("n", (5,)), ("1n", (1, 5)), ("m1", (3, 1)), ("11", (1, 1)), ("1", (1,)),
                        ("scalar", ())):
        for y in ("uint8", "float"):
            CATALOGUE.add(f"c_{name}_{y}", lambda shape=shape, y=y: Gemm(c_shape=shape, types=("uint8", "int8", y)))


def _per_column() -> None:
    """b_scale / b_zero_point per column [N] [b_scale, b_zero_point; reference READING_PER_COLUMN], each alone and
    both, transB 0 and 1, and one-element [1] forms (per tensor; a b_scale [1] beside a b_zero_point [])."""
    forms = (("both", "column", "column"), ("scale", "column", "tensor"), ("zero_point", "tensor", "column"),
             ("one", "one", "one"))
    for name, bs, bz in forms:
        for tb in (0, 1):
            for y in ("uint8", "float"):
                CATALOGUE.add(f"per_column_{name}_trans{tb}_{y}", lambda bs=bs, bz=bz, tb=tb, y=y: Gemm(
                    trans_b=tb, types=("uint8", "int8", y), b_scale_form=bs, b_zp_form=bz))
    for y in ("uint8", "float"):  # one value each, [1] and []: per tensor both
        CATALOGUE.add(f"b_scale_one_zero_point_scalar_{y}", lambda y=y: Gemm(types=("uint8", "int8", y),
                                                                             b_scale_form="one"))
    CATALOGUE.add("per_column_c_pow2", lambda: Gemm(b_scale_form="column", b_zp_form="column", c_shape=(3, 5),
                                                    scales="pow2", types=("uint8", "int8", "uint8")))


_types()
_transposes()
_alphas()
_c_shapes()
_per_column()


@CATALOGUE
def saturate_both_ends():
    """Outputs beyond both ends of the output type saturate (reference READING_REQUANT)."""
    return Gemm(types=("int8", "int8", "int8"), scales="saturate")


@CATALOGUE
def saturate_uint8_c():
    return Gemm(scales="saturate", c_shape=(5,))


@CATALOGUE
def ties_pow2():
    """Power-of-two scales: x / y_scale on half-integers, rounded to even (READING_REQUANT)."""
    return Gemm(m=4, k=6, n=4, types=("uint8", "int8", "uint8"), scales="pow2", spread=6)


@CATALOGUE
def ties_pow2_alpha_half():
    """alpha 1/2 with power-of-two scales: ties from alpha, which multiplies before the one rounding."""
    return Gemm(m=4, k=6, n=4, alpha=0.5, types=("int8", "int8", "int8"), scales="pow2", spread=6, c_shape=(4, 4))


@CATALOGUE
def ties_pow2_alpha_negative():
    return Gemm(m=4, k=6, n=4, alpha=-0.25, types=("uint8", "uint8", "uint8"), scales="pow2", spread=6)


@CATALOGUE
def zero_points_zero():
    return Gemm(types=("int8", "int8", "int8"), zero_points="zero")


@CATALOGUE
def k_1():
    return Gemm(m=3, k=1, n=4)


@CATALOGUE
def k_0():
    """K = 0: acc is the empty sum; y = saturate(round(alpha * a_scale * b_scale * C / y_scale) + y_zero_point)."""
    return Gemm(m=3, k=0, n=4, c_shape=(4,))


@CATALOGUE
def k_0_float():
    return Gemm(m=2, k=0, n=3, types=("uint8", "int8", "float"))


@CATALOGUE
def k_long():
    """K = 67 (odd), zero points at the ends: raw pair sums that leave int16 (onnxruntime#16105's kernel)."""
    return Gemm(m=2, k=67, n=3, types=("uint8", "int8", "uint8"), zero_points="ends")


@CATALOGUE
def k_long_float():
    return Gemm(m=2, k=67, n=3, types=("uint8", "int8", "float"), zero_points="ends", trans_b=1)


@CATALOGUE
def odd_sizes():
    return Gemm(m=5, k=7, n=3, types=("int8", "int8", "int8"), c_shape=(3,))


@CATALOGUE
def m_1_n_1():
    return Gemm(m=1, k=5, n=1)


@CATALOGUE
def c_int32_max():
    """acc + C = 2**31 - 1 everywhere (C = INT32_MAX - acc): int32's top end, defined (READING_FORMULA)."""
    return Gemm(m=2, k=3, n=3, c_shape=(2, 3), c_values="max", types=("uint8", "int8", "uint8"))


@CATALOGUE
def c_int32_min():
    return Gemm(m=2, k=3, n=3, c_shape=(2, 3), c_values="min", types=("int8", "int8", "int8"))


@CATALOGUE
def c_int32_max_float():
    return Gemm(m=2, k=3, n=3, c_shape=(2, 3), c_values="max", types=("uint8", "int8", "float"))


@PROBES
def scales_bad():
    """y_scale 0, negative, inf, NaN, -0 (reference UNDEF_SCALE)."""
    return Gemm(scales="bad")


@PROBES
def scales_bad_float():
    """a_scale 0, negative, inf, NaN, -0 with the float output."""
    return Gemm(scales="bad", types=("uint8", "int8", "float"))


@PROBES
def c_int32_overflow():
    """acc + C = 2**31: beyond int32 (reference UNDEF_ACC_INT32)."""
    return Gemm(m=2, k=3, n=3, c_shape=(2, 3), c_values="overflow", types=("uint8", "uint8", "uint8"),
                zero_points="zero")
