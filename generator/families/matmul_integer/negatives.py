"""MatMulInteger models the text rules out (negative/): the backend must refuse them, when preparing or when running
(before any output: the text says what is invalid, not when). Each has one data set of the declared shapes, for
backends that only look at run time."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case
from generator.families.matmul_integer.spec import CLAUSE, FAMILY, I8, MM, OPSET, U8, model


def _data(shapes: list, types: list, s: sampling.Stream) -> list[np.ndarray]:
    out = []
    for shape, t in zip(shapes, types):
        if shape is None:
            continue
        out.append(s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype))
    return out


def negative_case(mm: MM, shapes: list, types: list, why: str, seed: int) -> Case:
    """mm's model declared with shapes / types (A, B, a_zero_point, b_zero_point; None where absent), one data
    set of them; why: the rule it breaks, citing the text."""
    s = sampling.case_seed(seed, mm.name)
    inputs = _data(shapes, types, sampling.Stream(s))
    return FAMILY.negative(mm.name, model(mm, shapes, types, y=None), [inputs], phase="run", opset=OPSET,
                           clause=CLAUSE, seed=s, flags=["negative"], params=mm.params(), invalid=why)


def negative_cases(seed: int) -> Iterator[Case]:
    """[T1, T2: A / a_zero_point and B / b_zero_point share a type, int8 or uint8; numpy.matmul's shapes;
    a_zero_point per row ([M] or [D1, D2, M, 1]), b_zero_point per column ([N] or [D1, D2, 1, N])]"""
    u8, i8, i16 = dtypes.get(U8), dtypes.get(I8), dtypes.get("int16")
    shapes = [(3, 4), (4, 5), (), ()]
    yield negative_case(MM("negative_a_zero_point_type", (3, 4), (4, 5)), shapes, [u8, u8, i8, u8],
                        "a_zero_point is int8, A uint8: both are T1 [a_zero_point]", seed)
    yield negative_case(MM("negative_b_zero_point_type", (3, 4), (4, 5), (U8, I8)), shapes, [u8, i8, u8, u8],
                        "b_zero_point is uint8, B int8: both are T2 [b_zero_point]", seed)
    yield negative_case(MM("negative_a_int16", (3, 4), (4, 5), a_zp="absent", b_zp="absent"),
                        [(3, 4), (4, 5), None, None], [i16, u8, None, None],
                        "A is int16: T1 is int8 or uint8 [type constraints]", seed)
    yield negative_case(MM("negative_k_mismatch", (3, 4), (5, 2), a_zp="absent", b_zp="absent"),
                        [(3, 4), (5, 2), None, None], [u8, u8, None, None],
                        "A [3, 4] has K 4, B [5, 2] has 5: numpy.matmul refuses them [summary]", seed)
    yield negative_case(MM("negative_batch_mismatch", (2, 3, 4), (3, 4, 5), a_zp="absent", b_zp="absent"),
                        [(2, 3, 4), (3, 4, 5), None, None], [u8, u8, None, None],
                        "batch dimensions 2 and 3 do not broadcast (numpy.matmul) [summary]", seed)
    yield negative_case(MM("negative_a_zero_point_length", (3, 4), (4, 5), a_zp="row"), [(3, 4), (4, 5), (4,), ()],
                        [u8, u8, u8, u8], "a_zero_point has 4 elements, A [3, 4] has M = 3 rows: per row it has M "
                        "[a_zero_point]", seed)
    yield negative_case(MM("negative_b_zero_point_length", (3, 4), (4, 5), b_zp="column"), [(3, 4), (4, 5), (), (4,)],
                        [u8, u8, u8, u8], "b_zero_point has 4 elements, B [4, 5] has N = 5 columns: per column it has "
                        "N [b_zero_point]", seed)
