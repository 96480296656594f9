"""QGemm's fault models (generator/reference/qgemm_faults.py): each deviates from the reference on a data set built
here for it, and agrees with it where its equivalence proof says it must; the witness catalogue kills every fault
that can differ in every class."""

from __future__ import annotations

import numpy as np
import pytest

from generator import witness
from generator.faults import Refusal
from generator.reference import qgemm as ref
from generator.reference import qgemm_faults as F

U8, I8, F32 = np.uint8, np.int8, np.float32
BY = {f.name: f for f in F.FAULTS}


def _run(name, inputs, attrs):
    return BY[name].fn(inputs, attrs, 1, [])[0]


def _base(alpha=None, c=None, quantized=True, per_column=False):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, (3, 3)).astype(U8)
    b = rng.integers(-128, 128, (3, 3)).astype(I8)
    sb = np.array([2.0**-8, 2.0**-7, 2.0**-6], F32) if per_column else F32(2.0**-8)
    zb = np.array([1, -2, 3], I8) if per_column else I8(1)
    inputs = [a, F32(2.0**-7), U8(7), b, sb, zb, c] + ([F32(2.0**-3), U8(100)] if quantized else [])
    return inputs, ({} if alpha is None else {"alpha": alpha})


def _differs(name, inputs, attrs):
    want = ref.qgemm(inputs, attrs).outputs[0]
    try:
        got = _run(name, inputs, attrs)
    except Refusal:
        return True
    return got.shape != want.shape or not np.array_equal(got, want)


def test_alpha_faults():
    inputs, attrs = _base(alpha=-1.5, c=np.arange(9, dtype=np.int32).reshape(3, 3) * 500)
    for name in ("qgemm.alpha_ignored", "qgemm.alpha_after_requantization", "qgemm.c_scale_without_alpha",
                 "qgemm.c_scale_is_y_scale"):
        assert _differs(name, inputs, attrs), name
    inputs, attrs = _base(alpha=1.0)
    assert not _differs("qgemm.alpha_ignored", inputs, attrs)
    assert not _differs("qgemm.c_scale_without_alpha", inputs, attrs)  # no C: equivalent


def test_transpose_faults_refuse_or_differ():
    inputs, _ = _base()
    assert _differs("qgemm.trans_a_ignored", inputs, {"transA": 1})
    inputs[0] = inputs[0][:, :2]  # A (K=3, M=2) transposed: ignoring transA gives K = 2, refused
    with pytest.raises(Refusal):
        _run("qgemm.trans_a_ignored", inputs, {"transA": 1})


def test_per_column_faults():
    inputs, attrs = _base(per_column=True)
    for name in ("qgemm.per_column_zero_point_first", "qgemm.per_column_scale_first"):
        assert _differs(name, inputs, attrs)
    assert not _differs("qgemm.b_shapes_differ_refused", inputs, attrs)
    inputs[5] = I8(0)
    with pytest.raises(Refusal):
        _run("qgemm.b_shapes_differ_refused", inputs, attrs)
    inputs, attrs = _base()
    inputs[4] = inputs[4].reshape(1)  # [1] beside [] (onnxruntime refuses it too)
    with pytest.raises(Refusal):
        _run("qgemm.b_shapes_differ_refused", inputs, attrs)


def test_rounding_faults_on_a_tie():
    # acc[0, 0] = 1, multiplier 1/2: the tie 0.5 -> 0 (even); away -> 1; zero point 101 first: round(101.5) = 102
    a = np.zeros((1, 1), U8) + 1
    b = np.ones((1, 1), I8)
    inputs = [a, F32(0.5), U8(0), b, F32(1), I8(0), None, F32(1), U8(101)]
    assert ref.qgemm(inputs, {}).outputs[0].tolist() == [[101]]
    assert _run("qgemm.round_half_away", inputs, {}).tolist() == [[102]]
    assert _run("qgemm.zero_point_before_rounding", inputs, {}).tolist() == [[102]]
    assert _run("qgemm.column_tail4_round_half_away", inputs, {}).tolist() == [[102]]
    inputs[1] = F32(0.75)  # 0.75 -> 1; truncated 0
    assert _run("qgemm.requant_truncate", inputs, {}).tolist() == [[101]]


def test_saturation_faults_and_c_after_rounding():
    a, b = np.full((1, 1), 200, U8), np.ones((1, 1), I8)
    inputs = [a, F32(1), U8(0), b, F32(1), I8(0), np.array([100], np.int32), F32(1), U8(0)]
    assert ref.qgemm(inputs, {}).outputs[0].tolist() == [[255]]
    assert _run("qgemm.requant_unsaturated", inputs, {}).tolist() == [[300 % 256]]
    inputs2 = [np.ones((1, 1), U8), F32(0.5), U8(0), b, F32(1), I8(0), np.array([1], np.int32), F32(1), U8(0)]
    assert ref.qgemm(inputs2, {}).outputs[0].tolist() == [[1]]  # (1 + 1) / 2
    assert _run("qgemm.c_added_after_rounding", inputs2, {}).tolist() == [[0]]  # round(0.5) + round(0.5)


def test_float16_output_fault_is_outside_the_bound():
    from generator.families.qgemm.config import Gemm, compare
    from generator import dot_bound
    inputs, attrs = _base(quantized=False, alpha=0.1)
    got = _run("qgemm.float_output_via_float16", inputs, attrs)
    want = ref.qgemm(inputs, attrs).outputs[0]
    spec = compare(Gemm(m=3, k=3, n=3, alpha=0.1, types=("uint8", "int8", "float")))
    assert not dot_bound.check(spec, inputs[:6], want, got, ref.dtypes.get("float")).all()
    assert dot_bound.check(spec, inputs[:6], want, want, ref.dtypes.get("float")).all()


def test_int16_pairs():
    a = np.full((1, 4), 255, U8)
    b = np.full((4, 1), -128, I8)
    inputs = [a, F32(1), U8(255), b, F32(1), I8(-128), None, F32(1), U8(0)]
    assert ref.qgemm(inputs, {}).outputs[0].tolist() == [[0]]
    assert _differs("qgemm.int16_pair_saturation", inputs, {})


def test_the_witness_catalogue_kills_every_fault_in_every_class():
    groups = witness.load("qgemm")["groups"]
    assert set(groups) == {F.key_of(*g) for g in F.all_groups()}
    for key, group in groups.items():
        for f in F.FAULTS:
            if f.applies(group["params"]):
                assert f.name in group["faults"], (key, f.name)
