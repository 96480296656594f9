"""DynamicQuantizeMatMul models the text rules out (negative/): the backend must refuse them, when preparing or
running. A valid configuration's model with one input's type or shape made invalid, one data set of the declared
shapes (core.negative)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from generator.case import Case
from generator.families.dynamic_quantize_matmul.config import FAMILY, Config, model
from generator.families.matmul_integer_to_float import core
from generator.reference import dynamic_quantize_matmul as ref

BASE = Config("negative", a_shape=(3, 4), b_shape=(4, 5), b_zp="column", b_scale="column", bias=True)

BAD_TYPES = {
    "a_float16": ("A", "float16", "A float16: T1 is float"),
    "a_uint8": ("A", "uint8", "A uint8: T1 is float (MatMulIntegerToFloat takes quantized A)"),
    "b_int16": ("B", "int16", "B int16: T2 is int8 or uint8"),
    "b_zero_point_type": ("b_zero_point", "uint8", "b_zero_point uint8 with B int8: both are T2"),
    "b_scale_float16": ("b_scale", "float16", "b_scale float16: T1 is float"),
    "bias_float16": ("bias", "float16", "bias float16: T1 is float"),
}
BAD_SHAPES = {
    "b_scale_length": ("b_scale", (4,), "b_scale [4] for B [4, 5]: 1-D, its elements must be 'equal to the number "
                                        "of columns of input B' (5)"),
    "b_zero_point_length": ("b_zero_point", (6,), "b_zero_point [6] for B [4, 5]: not the 5 columns of B"),
    "b_scale_2d": ("b_scale", (1, 5), "b_scale [1, 5]: 'a scalar or a 1-D tensor'"),
    "bias_length": ("bias", (4,), "bias [4]: its dimension must be 'same as B's last dimension' (5)"),
    "k_mismatch": ("B", (5, 5), "A [3, 4] has K 4, B [5, 5] has 5 (matrix product)"),
}


def negative_cases(seed: int = 0) -> Iterator[Case]:
    """[T1, T2; the inputs' shapes]"""
    for what, (name, t, why) in BAD_TYPES.items():
        cfg = replace(BASE, what=f"negative_{what}")
        types = {n: cfg.type_of(n) for n in cfg.slots} | {name: t}
        ins = [(n, types[n], cfg.shape_of(n)) for n in cfg.slots]
        yield core.negative(FAMILY, f"{FAMILY.prefix}_{cfg.what}", model(cfg, types=types, y_shape=None), ins, why,
                            seed, cfg.params, ref.CLAUSE)
    for what, (name, shape, why) in BAD_SHAPES.items():
        cfg = replace(BASE, what=f"negative_{what}")
        shapes = {n: cfg.shape_of(n) for n in cfg.slots} | {name: shape}
        ins = [(n, cfg.type_of(n), shapes[n]) for n in cfg.slots]
        yield core.negative(FAMILY, f"{FAMILY.prefix}_{cfg.what}", model(cfg, shapes=shapes, y_shape=None), ins,
                            why, seed, cfg.params, ref.CLAUSE)
