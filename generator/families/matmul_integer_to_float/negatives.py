"""MatMulIntegerToFloat models the text rules out (negative/): the backend must refuse them, when preparing or
running. Each is a valid configuration's model with one input's type or shape made invalid, one data set of the
declared shapes."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from generator.case import Case
from generator.families.matmul_integer_to_float import core
from generator.families.matmul_integer_to_float.config import FAMILY, Config, model
from generator.reference import matmul_integer_to_float as ref

BASE = Config("negative", a_shape=(3, 4), b_shape=(4, 5), b_zp="column", b_scale="column", bias=True)

# what -> (input, type, the rule it breaks)
BAD_TYPES = {
    "a_zero_point_type": ("a_zero_point", "int8", "a_zero_point int8 with A uint8: both are T1"),
    "b_zero_point_type": ("b_zero_point", "uint8", "b_zero_point uint8 with B int8: both are T2"),
    "a_int16": ("A", "int16", "A int16: T1 is int8 or uint8"),
    "b_scale_float16": ("b_scale", "float16", "b_scale float16 with a_scale float: both are T3"),
    "bias_float16": ("bias", "float16", "bias float16 with a_scale float: both are T3"),
    "a_scale_double": ("a_scale", "double", "a_scale double: T3 is float or float16"),
}
# what -> (input, shape, the rule it breaks)
BAD_SHAPES = {
    "a_scale_per_row": ("a_scale", (3,), "a_scale [3] for A [3, 4]: 1-D, its elements must be 'equal to the number "
                                          "of columns of input A' (4)"),
    "a_zero_point_per_row": ("a_zero_point", (3,), "a_zero_point [3] for A [3, 4]: not the 4 columns of A"),
    "a_scale_2d": ("a_scale", (1, 4), "a_scale [1, 4]: 'a scalar or a 1-D tensor'"),
    "b_scale_length": ("b_scale", (4,), "b_scale [4] for B [4, 5]: not the 5 columns of B"),
    "b_zero_point_length": ("b_zero_point", (6,), "b_zero_point [6] for B [4, 5]: not the 5 columns of B"),
    "bias_length": ("bias", (4,), "bias [4]: its dimension must be 'same as B's last dimension' (5)"),
    "k_mismatch": ("B", (5, 5), "A [3, 4] has K 4, B [5, 5] has 5 (matrix product)"),
}


def negative_cases(seed: int = 0) -> Iterator[Case]:
    """[T1, T2, T3; the inputs' shapes]"""
    for what, (name, t, why) in BAD_TYPES.items():
        cfg = replace(BASE, what=f"negative_{what}")
        types = {n: cfg.type_of(n) for n in cfg.slots} | {name: t}
        m = model(cfg, types=types, y_shape=None)
        ins = [(n, types[n], cfg.shape_of(n)) for n in cfg.slots]
        yield core.negative(FAMILY, cfg_name(cfg), m, ins, why, seed, cfg.params, ref.CLAUSE)
    for what, (name, shape, why) in BAD_SHAPES.items():
        cfg = replace(BASE, what=f"negative_{what}")
        shapes = {n: cfg.shape_of(n) for n in cfg.slots} | {name: shape}
        m = model(cfg, shapes=shapes, y_shape=None)
        ins = [(n, cfg.type_of(n), shapes[n]) for n in cfg.slots]
        yield core.negative(FAMILY, cfg_name(cfg), m, ins, why, seed, cfg.params, ref.CLAUSE)


def cfg_name(cfg: Config) -> str:
    return f"{FAMILY.prefix}_{cfg.what}"
