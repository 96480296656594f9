"""Compare mode "dot" (runners/compare.py, generator/dot_bound.py): the TOSA dot-product bound per output element,
computed from the data set's own inputs. Values just inside the bound pass, just outside fail; infinities, NaN
and a zero bound follow their rules; the case format checks the spec."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dot_bound, dtypes
from generator.case_fields import compare_problem
from generator.reference import matmul_nbits as ref
from runners.compare import compare_outputs

F32, F16 = dtypes.get("float32"), dtypes.get("float16")
ATTRS = {"K": 32, "N": 2, "bits": 4, "block_size": 16}


def _case(t1=np.float32, level=None, bias=False):
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 16, (2, 2, 16))
    inputs = [(rng.integers(-16, 16, (3, 32)) / 8).astype(t1), ref.pack(codes, 4),
              (rng.integers(1, 8, (2, 2)) / 64).astype(t1)]
    slots = ["A", "B", "scales"] + (["bias"] if bias else [])
    if bias:
        inputs.append(np.array([0.5, -1.0], dtype=t1))
    node = dict(ATTRS, **({"accuracy_level": level} if level is not None else {}))
    spec = dot_bound.spec_of(node, slots, dtypes.from_numpy(np.dtype(t1)).name, "test")
    full = [dict(zip(slots, inputs)).get(n) for n in ref.INPUTS]
    return inputs, spec, full


def _verdict(actual, expected, inputs, spec, t=F32):
    return compare_outputs([expected], [np.asarray(actual).astype(t.np_dtype)], ["Y"], [t], spec, "strict",
                           inputs=inputs)


def test_the_spec_states_the_bound_parameters():
    inputs, spec, _ = _case(bias=True)
    assert spec["mode"] == "dot" and spec["accumulation"] == "float" and spec["abs_bound"] == 2 * (32 + 1)
    assert compare_problem(spec, [("Y", F32)]) is None
    assert "slots" in compare_problem({k: v for k, v in spec.items() if k != "slots"}, [("Y", F32)])
    assert "float output" in compare_problem(spec, [("Y", dtypes.get("int32"))])
    assert dot_bound.accumulation("float16", 0) == "float16" and dot_bound.accumulation("float", 2) == "float16"
    assert dot_bound.accumulation("float", 3) == "bfloat16" and dot_bound.accumulation("float", 4) == "float"


@pytest.mark.parametrize("t1, level, acc", [
    ("float16", 0, "float16"), ("float16", 1, "float"), ("bfloat16", 1, "float"), ("bfloat16", 2, "float16"),
    ("float16", 3, "bfloat16"), ("float16", 4, "float16"), ("float", 0, "float"), ("float", 1, "float")])
def test_the_level_names_the_accumulation_whatever_a_s_type(t1, level, acc):
    """accuracy_level 1, 2, 3: that type's sum (a float16 A at level 1 as precisely as float32); 0 and 4: A's."""
    assert dot_bound.accumulation(t1, level) == acc


def test_inside_the_bound_passes_and_outside_fails():
    inputs, spec, full = _case()
    ref_y, bnd, qerr = ref.dot_terms(full, ATTRS)
    tol = dot_bound.tolerance(bnd, qerr, F32, spec["abs_bound"])
    expected = ref_y.astype(np.float32)
    assert _verdict(expected, expected, inputs, spec).ok
    inside = (ref_y + 0.9 * tol).astype(np.float32)
    assert _verdict(inside, expected, inputs, spec).ok
    outside = np.nextafter((ref_y + 1.1 * tol).astype(np.float32), np.float32(np.inf))
    out = _verdict(outside, expected, inputs, spec)
    assert not out.ok and out.n_mismatch == expected.size and "dot-product bound" in out.message


def test_an_infinity_or_nan_fails_where_the_bound_is_finite():
    inputs, spec, _ = _case()
    expected = ref.matmul_nbits(_case()[2], ATTRS).outputs[0]
    for bad in (np.inf, np.nan):
        actual = expected.copy()
        actual[0, 0] = bad
        outcome = _verdict(actual, expected, inputs, spec)
        assert not outcome.ok and outcome.n_mismatch == 1


def test_a_zero_bound_needs_zero_and_an_overflowing_bound_allows_anything():
    ref_y, bnd = np.array([0.0, 1.0]), np.array([0.0, 70000.0])
    ok = dot_bound.within(ref_y, bnd, np.zeros(2), np.array([2.0**-24, np.inf]), F16, F16, 10)
    assert ok.tolist() == [False, True]
    assert dot_bound.within(ref_y, bnd, np.zeros(2), np.array([0.0, 1.0]), F16, F16, 10).all()
    assert dot_bound.within(np.array([np.nan]), np.array([1.0]), np.zeros(1), np.array([np.nan]), F16, F16, 2).all()


def test_accuracy_level_4_allows_half_an_int8_step_of_a():
    """A quantized to int8 in blocks (accuracy_level 4) passes there and fails at level 0; truncated to int8, it
    fails at 4 where every a is q + 3/4 steps over a positive weight (3/4 of a step lost a term, half allowed)."""
    from generator.reference.matmul_nbits_faults import _int8_blocks
    for level, passes in ((4, True), (0, False)):
        inputs, spec, full = _case(level=level)
        expected = ref.matmul_nbits(full, ATTRS).outputs[0]
        w = ref.weights(full[1], full[2], None, None, ATTRS)
        actual = (_int8_blocks(inputs[0], 16) @ w.T).astype(np.float32)
        assert _verdict(actual, expected, inputs, spec).ok is passes, level
    inputs, spec, full = _case(level=4)
    a = np.tile(np.arange(32) % 100 + 0.75, (3, 1)) / 64
    a[:, [0, 16]] = 127 / 64  # each block's max: one step is 1/64 exactly
    inputs[0], full[0] = a.astype(np.float32), a.astype(np.float32)
    full[1] = inputs[1] = ref.pack(np.full((2, 2, 16), 9), 4)  # w = scale > 0
    full[2] = inputs[2] = np.abs(inputs[2])
    expected = ref.matmul_nbits(full, ATTRS).outputs[0]
    w = ref.weights(full[1], full[2], None, None, ATTRS)
    for rounding, passes in ((np.round, True), (np.trunc, False)):
        actual = (_int8_blocks(a, 16, rounding) @ w.T).astype(np.float32)
        assert _verdict(actual, expected, inputs, spec).ok is passes, rounding


def test_without_inputs_the_mode_cannot_judge():
    inputs, spec, full = _case()
    expected = ref.matmul_nbits(full, ATTRS).outputs[0]
    with pytest.raises(ValueError, match="inputs"):
        compare_outputs([expected], [expected], ["Y"], [F32], spec, "strict")
