"""MatMulNBits fault models (generator/reference/matmul_nbits_faults.py): the equivalence proofs hold (where a fault
says it cannot differ, its outputs equal the reference's on random data), each fault is killed only outside the
dot-product bound, and the two measured onnxruntime faults reproduce what their threads describe."""

from __future__ import annotations

import numpy as np
import pytest

from generator import faults
from generator.families.matmul_nbits.config import Config, cases
from generator.reference import matmul_nbits_faults as F

BY_NAME = faults.by_name("matmul_nbits")


def _case(cfg: Config):
    return next(c for c in cases(cfg) if c.kind == "node")


@pytest.mark.parametrize("fault, cfg", [
    ("matmul_nbits.k_tail_row_stride", Config("eq_stride", K=48, zero_points="packed")),
    ("matmul_nbits.zero_point_rows_unpadded", Config("eq_rows", K=32, zero_points="packed")),  # 2 blocks: 1 byte
    ("matmul_nbits.zero_point_rows_unpadded", Config("eq_one_row", K=48, N=1, zero_points="packed")),
])
def test_equivalent_where_the_proof_says_so(fault, cfg):
    f = BY_NAME[fault]
    assert f.equivalent(faults.group_params(_case(cfg).meta)) is not None
    c = _case(cfg)
    for x, y in zip(c.inputs, c.outputs):
        assert np.array_equal(faults.fault_outputs(f, c.model, x, c.meta)[0], y[0])


@pytest.mark.parametrize("fault, cfg", [
    ("matmul_nbits.k_tail_row_stride", Config("k_stride", K=40, zero_points="packed")),
    ("matmul_nbits.zero_point_rows_unpadded", Config("rows", K=48, zero_points="packed")),
    ("matmul_nbits.large_block_zeros", Config("big", block_size=512, K=512, N=2, a_shape=(1,))),
    ("matmul_nbits.float16_block_accumulation", Config("f16", t1="float16", K=64, block_size=32)),
    ("matmul_nbits.a_int8_per_row", Config("rows", K=56, accuracy_level=4, zero_points="packed", bias=True)),
    ("matmul_nbits.a_int8_truncated", Config("trunc", K=80, block_size=32, accuracy_level=4, zero_points="typed")),
    ("matmul_nbits.a_type_accumulation", Config("f16_1", t1="float16", K=256, block_size=32, accuracy_level=1)),
    ("matmul_nbits.a_type_accumulation", Config("bf16_1", t1="bfloat16", K=512, block_size=64, accuracy_level=1)),
])
def test_a_fault_is_killed_only_outside_the_bound(fault, cfg):
    """killed() agrees with the case's own comparison: the fault's outputs fail the dot bound on some data set,
    and the reference's outputs never do."""
    f, c = BY_NAME[fault], _case(cfg)
    assert faults.group_params(c.meta) and f.applies(faults.group_params(c.meta))
    verdicts = [F.killed(f, c.meta, y, F.run(f, c.model, x, c.meta)) for x, y in zip(c.inputs, c.outputs)]
    assert any(verdicts)
    ref_fault = faults.Fault("reference", "none", F._faulty())
    assert not any(F.killed(ref_fault, c.meta, y, F.run(ref_fault, c.model, x, c.meta))
                   for x, y in zip(c.inputs, c.outputs))


def test_float16_accumulation_overflows_only_on_the_overflow_data():
    f, c = BY_NAME["matmul_nbits.float16_block_accumulation"], _case(Config("f16", t1="float16", K=64, block_size=32))
    outs = [F.run(f, c.model, x, c.meta)[0] for x in c.inputs]
    assert [bool(np.isinf(o).any()) for o in outs] == [False, False, False, True]  # random, random, int8, overflow
    assert all(np.isfinite(y[0]).all() for y in c.outputs)


def test_g_idx_faults_follow_the_cpu_kernel():
    """With g_idx, the packed zero points give way to 8, and 2-bit codes are read as the nibbles of B."""
    c = _case(Config("g", K=64, zero_points="packed", g_idx=True))
    x = c.inputs[0]
    with_8 = faults.fault_outputs(BY_NAME["matmul_nbits.g_idx_packed_zero_points_ignored"], c.model, x, c.meta)[0]
    assert not np.array_equal(with_8, c.outputs[0][0])
    two = _case(Config("g2", bits=2, K=48, N=2, g_idx=True))
    out = faults.fault_outputs(BY_NAME["matmul_nbits.g_idx_two_bit_read_as_four_bit"], two.model, two.inputs[0],
                               two.meta)[0]
    assert out.shape == two.outputs[0][0].shape and not np.allclose(out, two.outputs[0][0])


def _killed_per_kind(fault: str, cfg: Config) -> dict:
    f, c = BY_NAME[fault], _case(cfg)
    return {kind: F.killed(f, c.meta, y, F.run(f, c.model, x, c.meta))
            for kind, x, y in zip(cfg.kinds, c.inputs, c.outputs)}


def test_the_wrong_int8_quantizations_of_a_fail_where_the_kind_is_drawn_for_them():
    """Per-row int8 A fails on blocks orders of magnitude apart, truncation on q + 3/4 steps over positive weights
    (3/4 of a step lost a term where the bound allows half); the reference's per-block rounding passes both."""
    cfg = Config("q", K=56, accuracy_level=4, zero_points="packed", bias=True, kinds=("int8_rows", "int8_round"))
    assert _killed_per_kind("matmul_nbits.a_int8_per_row", cfg)["int8_rows"]
    assert _killed_per_kind("matmul_nbits.a_int8_truncated", cfg)["int8_round"]
    per_block = faults.Fault("per_block", "", F._faulty(a_int8=True))
    c = _case(cfg)
    assert not any(F.killed(per_block, c.meta, y, F.run(per_block, c.model, x, c.meta))
                   for x, y in zip(c.inputs, c.outputs))


def test_the_wrong_int8_quantizations_equal_the_right_one_where_they_cannot_differ():
    """One block along K: a row is a block (per-row equals per-block, the proof the fault states); A on the int8
    grid (q steps of 2**-4): truncation equals rounding, and both equal the reference."""
    one = Config("one", K=16, accuracy_level=4)
    assert BY_NAME["matmul_nbits.a_int8_per_row"].equivalent(faults.group_params(_case(one).meta))
    c = _case(one)
    x = c.inputs[0]
    per_row = faults.fault_outputs(BY_NAME["matmul_nbits.a_int8_per_row"], c.model, x, c.meta)[0]
    per_block = faults.Fault("per_block", "", F._faulty(a_int8=True))
    assert np.array_equal(per_row, faults.fault_outputs(per_block, c.model, x, c.meta)[0])
    grid = [np.where(np.arange(16) == 0, 127, np.arange(16) % 100).astype(np.float32)[None, :].repeat(2, 0) / 16]
    grid += list(x[1:])
    trunc = faults.fault_outputs(BY_NAME["matmul_nbits.a_int8_truncated"], c.model, grid, c.meta)[0]
    expected = faults.fault_outputs(faults.Fault("reference", "none", F._faulty()), c.model, grid, c.meta)[0]
    assert np.array_equal(trunc, expected)


def test_a_type_accumulation_is_exact_where_every_partial_sum_is():
    """Small integers over unit weights: every partial sum exact in float16, the fault equals the reference; the
    "swamp" data (2048 first, then terms below half an ulp of it) lose every later term."""
    cfg = Config("f16_1", t1="float16", K=256, block_size=32, accuracy_level=1, kinds=("swamp",))
    c = _case(cfg)
    f = BY_NAME["matmul_nbits.a_type_accumulation"]
    x = list(c.inputs[0])
    x[0] = np.ones_like(x[0])  # a = 1, w = 1/4: partial sums multiples of 1/4 below 64
    ref_f = faults.Fault("reference", "none", F._faulty())
    assert np.array_equal(faults.fault_outputs(f, c.model, x, c.meta)[0],
                          faults.fault_outputs(ref_f, c.model, x, c.meta)[0])
    out = faults.fault_outputs(f, c.model, c.inputs[0], c.meta)[0]
    assert np.all(out == 2048) and np.all(c.outputs[0][0] > 2048 + 255 / 4)
