"""The axes of generation over QLinearMatMul (generator/axes.py): the vector tail and the opset boundary; the
int32-overflow probe; the seeded random configurations."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

import numpy as np

import onnx

from generator import axes, dtypes, sampling
from generator.case import Case, node_model
from generator.family import split
from generator.families.qlinear_matmul.mm import (CLAUSE, COMPARE, FAMILY, NAMES, NEWEST, OPSET, MatMul,
                                                  dataset_cases, draw_dataset, expected, reading, spec_file)
from generator.reference import qlinear_matmul as ref

_TAIL = MatMul("vector_tail", a_shape=(2, 3), b_shape=(3, 1), types=("uint8", "int8", "uint8"))


def tail_cases(opset: int = NEWEST) -> Iterator[Case]:
    """The vector-tail axis: one model of symbolic N (b [3, N], y [2, N]), one data set per tail length; every column
    but the last has acc 0, the last acc 1 and 5 with multiplier 1/2: the ties 0.5 and 2.5, which a scalar
    remainder rounding half away from zero takes to 1 / 3 (the reference: 0 / 2)."""
    u8, i8 = dtypes.get("uint8"), dtypes.get("int8")
    sets = []
    for n in axes.tail_lengths(short=True):
        a = np.array([[1, 0, 0], [5, 0, 0]], np.uint8)  # zero points 0: acc[:, n] = b[0, n] * (1, 5)
        b = np.zeros((3, n), np.int8)
        b[0, -1] = 1
        sets.append([a, np.float32(2.0**-7), np.uint8(0), b, np.float32(2.0**-8), np.int8(0),
                     np.float32(2.0**-14), np.uint8(128)])
    sets = [[np.asarray(v) for v in s] for s in sets]
    f32 = dtypes.get("float")
    model = node_model(FAMILY.op, list(zip(NAMES, [u8, f32, u8, i8, f32, i8, f32, u8],
                                           [(2, 3), (), (), (3, "N"), (), (), (), ()])), [("y", u8, (2, "N"))], {},
                       opset)
    meta = FAMILY.meta(opset=opset, clause=CLAUSE, compare=COMPARE, flags=["edge", "vector_tail"], seed=0,
                       spec_file=spec_file(opset),
                       params=dict(_TAIL.params(), b_shape=[3, "N"]), reading=reading(_TAIL))
    yield from split(_TAIL.name, sets, [expected(s) for s in sets], lambda _: model, meta)


def boundary_cases(max_opset: int, n: int) -> Iterator[Case]:
    """The opset-boundary axis: the opsets just below, at and above 21 (QLinearMatMul-21: new types, the same
    arithmetic), one int8 configuration: test_qlinearmatmul_opset<n>."""
    newest = min(max_opset, onnx.defs.onnx_opset_version())
    base = MatMul("opset", types=("int8", "int8", "int8"))
    s = sampling.case_seed(0, base.name)
    for opset in axes.boundary_opsets([NEWEST], OPSET, newest):
        stream = sampling.Stream(s)
        mm = replace(base, what=f"opset{opset}", opset=opset)
        yield from dataset_cases(mm, [draw_dataset(mm, stream, i) for i in range(n)], s, ["edge", "opset_boundary"])


def overflow_probe(opset: int = NEWEST) -> Iterator[Case]:
    """acc beyond int32 (reference UNDEF_ACC_INT32): a [1, K] and b [K, 1] of 255 with zero points 0, K = 33026, the
    least K with K * 255 * 255 > 2**31 - 1 (one output element)."""
    k = 33026
    mm = MatMul("acc_int32_overflow", a_shape=(1, k), b_shape=(k, 1), opset=opset)
    u8 = np.uint8
    inputs = [np.full((1, k), 255, u8), np.float32(2.0**-8), u8(0), np.full((k, 1), 255, u8), np.float32(2.0**-8),
              u8(0), np.float32(1.0), u8(0)]
    yield from dataset_cases(mm, [[np.asarray(v) for v in inputs]], 0, ["probe"])


def random_configurations(count: int, seed: int, max_opset: int = NEWEST) -> list[MatMul]:
    """count configurations from seeded draws: shapes (1-D, 2-D, batched, broadcast), types, granularity, scale
    type (21), opset."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    out = []
    for i in range(count):
        m, k, n = s.integers(1, 6), s.integers(1, 40), s.integers(1, 6)
        kind = s.choice(("2d", "2d", "a1d", "b1d", "batched", "broadcast"))
        a_shape, b_shape = {"2d": ((m, k), (k, n)), "a1d": ((k,), (k, n)), "b1d": ((m, k), (k,)),
                            "batched": ((2, m, k), (2, k, n)), "broadcast": ((3, m, k), (2, 1, k, n))}[kind]
        opset = s.choice((OPSET, NEWEST)) if max_opset >= NEWEST else OPSET
        types = tuple(s.choice(ref.INT_TYPES) for _ in range(3))
        a_quant = s.choice(("per_tensor", "per_row_nd")) if len(a_shape) > 1 else "per_tensor"
        b_quant = s.choice(("per_tensor", "per_column_nd")) if len(b_shape) > 1 else "per_tensor"
        scale_type = s.choice(ref.SCALE_TYPES[opset if opset >= NEWEST else OPSET])
        out.append(MatMul(f"config_{i:03d}_random", a_shape, b_shape, types, scale_type, a_quant, b_quant, opset=opset))
    return out


F16_SLOTS = ("a_scale", "b_scale", "y_scale")


def float16_slot_sets() -> list[list[np.ndarray]]:
    """One data set per scale slot (a_scale, b_scale, y_scale) whose float16 value is a subnormal k 2**-24: a [2, 4]
    uint8, b [4, 3] int8 (seeded draws; within 3 of the zero points for the y_scale slot, so that a normal a_scale *
    b_scale still gives y in range), the other scales normal; k the largest (k < 1024) where a multiplier
    (a_scale * b_scale) / y_scale computed in float16 (qlinear_matmul.requant_scale_type) changes y. The reference's
    exact multiplier does not round: a float32 one agrees with it on these data sets."""
    from generator.reference.qlinear_matmul_faults import FAULTS
    in_f16 = next(f for f in FAULTS if f.name == "qlinear_matmul.requant_scale_type")
    s = sampling.Stream(sampling.case_seed(0, f"{FAMILY.prefix}_scales_float16_slots"))
    f16 = np.float16
    az, bz, yz = np.uint8(131), np.int8(-3), np.uint8(128)
    sets = []
    for slot in F16_SLOTS:
        near = 3 if slot == "y_scale" else None
        a = (s.integers(0, 255, (2, 4)) if near is None else 131 + s.integers(-near, near, (2, 4))).astype(np.uint8)
        b = (s.integers(-128, 127, (4, 3)) if near is None else -3 + s.integers(-near, near, (4, 3))).astype(np.int8)
        acc, _ = ref.accumulate(ref.operands(a, f16(1), az, b, f16(1), bz, f16(1), yz))
        spread = max(1.0, float(np.abs(acc).max()))
        for k in range(1023, 0, -1):
            v = k * 2.0**-24
            sa, sb = (v, 2.0**-4) if slot == "a_scale" else (2.0**-4, v) if slot == "b_scale" else \
                (2.0**-6, float(f16(v * 100 / spread * 2**6)))
            ys = v if slot == "y_scale" else float(f16(sa * sb * spread / 100))
            inputs = [np.asarray(x) for x in (a, f16(sa), az, b, f16(sb), bz, f16(ys), yz)]
            if not np.array_equal(in_f16.fn(inputs, {}, NEWEST, [])[0], expected(inputs).outputs[0]):
                sets.append(inputs)
                break
        else:
            raise ValueError(f"float16 slot {slot}: no subnormal tells a float16 multiplier apart")
    return sets


def float16_slot_cases(opset: int = NEWEST) -> Iterator[Case]:
    """scales_float16_slots: float16 scales (QLinearMatMul-21's TS), a subnormal in each slot in turn
    (float16_slot_sets)."""
    mm = MatMul("scales_float16_slots", a_shape=(2, 4), b_shape=(4, 3), types=("uint8", "int8", "uint8"),
                scale_type="float16", opset=opset)
    yield from dataset_cases(mm, float16_slot_sets(), 0, ["edge"])
