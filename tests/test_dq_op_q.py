"""generator/reference/dq_op_q.py: the results a float32 evaluation of DequantizeLinear -> Conv / MatMul ->
QuantizeLinear can give. Checked against float32 evaluations in several orders of the sums (forward, backward,
pairwise, with and without fused products), which must all land in [lo, hi], and the bound must stay tight (one value
for almost every element)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.reference import dq_op_q

F32 = np.float32


def _sum32(terms: np.ndarray, order: str) -> np.ndarray:
    """Float32 sums over the last axis of float32 terms, in one order."""
    t = terms.astype(F32)
    if order == "backward":
        t = t[..., ::-1]
    if order == "pairwise":
        while t.shape[-1] > 1:
            if t.shape[-1] % 2:
                t = np.concatenate([t, np.zeros(t.shape[:-1] + (1,), F32)], axis=-1)
            t = (t[..., 0::2] + t[..., 1::2]).astype(F32)
        return t[..., 0]
    acc = np.zeros(t.shape[:-1], F32)
    for k in range(t.shape[-1]):
        acc = (acc + t[..., k]).astype(F32)
    return acc


def _case(seed: int):
    rng = np.random.default_rng(seed)
    m, k, n = 3, int(rng.integers(4, 80)), 5
    x = rng.integers(0, 256, size=(m, k)).astype(np.uint8)
    w = rng.integers(-127, 128, size=(k, n)).astype(np.int8)
    xs, xz = F32(rng.uniform(0.001, 0.05)), np.uint8(rng.integers(100, 140))
    ws = rng.uniform(0.0005, 0.01, size=n).astype(F32)
    ys, yz = F32(rng.uniform(0.01, 0.3)), np.uint8(rng.integers(0, 256))
    inputs = [x, xs, xz, w, ws, np.zeros(n, np.int8), None, None, None, ys, yz]
    return inputs, {"op": "MatMul", "out": "uint8", "bias": False, "x_axis": 1, "w_axis": 1}


@pytest.mark.parametrize("seed", range(12))
def test_every_float32_order_lands_in_the_range(seed):
    inputs, node = _case(seed)
    x, xs, xz, w, ws, wz, *_, ys, yz = inputs
    xf = ((x.astype(F32) - F32(xz)) * xs).astype(F32)
    wf = ((w.astype(F32) - wz.astype(F32)) * ws).astype(F32)
    expected, lo, hi = dq_op_q.bounds(inputs, node)
    for fused in (False, True):
        prods = xf.astype(np.float64)[:, :, None] * wf.astype(np.float64)[None, :, :]
        terms = prods if fused else prods.astype(F32)  # a fused product keeps the exact one until the add
        for order in ("forward", "backward", "pairwise"):
            c = _sum32(np.moveaxis(terms, 1, -1), order)
            q = np.clip(np.rint((c / ys).astype(F32).astype(np.float64)) + int(yz), 0, 255)
            assert ((q >= lo) & (q <= hi)).all(), (order, fused)
    assert ((expected >= lo) & (expected <= hi)).all()


def test_the_range_is_one_value_almost_everywhere():
    shares = [dq_op_q.undefined_share(*_case(seed)) for seed in range(12)]
    assert max(shares) < 0.2 and np.mean(shares) < 0.05


def test_an_exact_chain_has_no_range():
    """Power-of-two scales and small integers: every order gives the same float32, so one value everywhere."""
    x = np.array([[130, 125, 128, 131]], np.uint8)
    w = np.array([[1], [-2], [3], [1]], np.int8)
    inputs = [x, F32(0.25), np.uint8(128), w, np.array([0.5], F32), np.zeros(1, np.int8), None, None, None,
              F32(0.125), np.uint8(10)]
    expected, lo, hi = dq_op_q.bounds(inputs, {"op": "MatMul", "out": "uint8", "bias": False, "w_axis": 1})
    # x - 128 = (2, -3, 0, 3): (2*1 + 6 + 0 + 3) * 0.25 * 0.5 = 1.375, / 0.125 = 11, + 10
    assert expected.tolist() == [[21]] and (lo == hi).all()


def _gemm_case(seed: int):
    rng = np.random.default_rng(100 + seed)
    m, k, n = 3, int(rng.integers(4, 60)), 4
    trans_b = int(seed % 2)
    x = rng.integers(0, 256, size=(m, k)).astype(np.uint8)
    w = rng.integers(-127, 128, size=(n, k) if trans_b else (k, n)).astype(np.int8)
    xs, xz = F32(rng.uniform(0.001, 0.05)), np.uint8(rng.integers(100, 140))
    ws = F32(rng.uniform(0.0005, 0.01))
    c = rng.integers(-5000, 5000, size=n).astype(np.int32)
    cs = F32(xs * ws)
    ys, yz = F32(rng.uniform(0.01, 0.3)), np.uint8(rng.integers(0, 256))
    alpha = float(F32(rng.choice([1.0, 0.75, 2.0])))
    inputs = [x, xs, xz, w, ws, np.int8(0), c, cs, np.int32(0), ys, yz]
    node = {"op": "Gemm", "out": "uint8", "bias": True, "alpha": alpha, "beta": 1.0, "transA": 0, "transB": trans_b}
    return inputs, node


@pytest.mark.parametrize("seed", range(8))
def test_every_float32_order_of_a_gemm_lands_in_the_range(seed):
    """Gemm-13: alpha * A * B' + beta * C, each float32 order of the sums, alpha applied to the sum or to each
    product, then QuantizeLinear."""
    inputs, node = _gemm_case(seed)
    x, xs, xz, w, ws, _, c, cs, _, ys, yz = inputs
    xf = ((x.astype(F32) - F32(xz)) * xs).astype(F32)
    wf = (w.astype(F32) * ws).astype(F32)
    wf = wf.T if node["transB"] else wf
    cf = (c.astype(F32) * cs).astype(F32)
    alpha = F32(node["alpha"])
    expected, lo, hi = dq_op_q.bounds(inputs, node)
    prods = (xf[:, :, None] * wf[None, :, :]).astype(F32)
    for early in (False, True):
        terms = (prods * alpha).astype(F32) if early else prods
        for order in ("forward", "backward", "pairwise"):
            s = _sum32(np.moveaxis(terms, 1, -1), order)
            g = ((s if early else (s * alpha).astype(F32)) + cf).astype(F32)
            q = np.clip(np.rint((g / ys).astype(F32).astype(np.float64)) + int(yz), 0, 255)
            assert ((q >= lo) & (q <= hi)).all(), (order, early)
    assert ((expected >= lo) & (expected <= hi)).all()
    assert np.mean(lo != hi) < 0.2


def test_a_gemm_of_power_of_two_scales_is_exact_and_its_ties_round_to_even():
    """x - 128 = (1, 2), w = (1, 0)': 1 * 0.25 * 1 * 0.5 = 0.125, + C = 1 * 0.125: 0.25 / y_scale 0.5 = 0.5, a tie:
    0 (even) + 11 = 11, one value only (every float32 order is exact)."""
    x = np.array([[129, 130]], np.uint8)
    w = np.array([[1], [0]], np.int8)
    node = {"op": "Gemm", "out": "uint8", "bias": True, "alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}
    inputs = [x, F32(0.25), np.uint8(128), w, F32(0.5), np.int8(0), np.array([1], np.int32), F32(0.125),
              np.int32(0), F32(0.5), np.uint8(11)]
    expected, lo, hi = dq_op_q.bounds(inputs, node)
    assert expected.tolist() == [[11]] and (lo == hi).all()
    inputs[1] = F32(0.25 * 1.01)  # off the power-of-two grid: the tie is no longer exact, either neighbour
    inputs[7] = F32(inputs[1] * 0.5)
    inputs[-2] = F32(float(inputs[1]) * 0.5 * 4)
    _, lo, hi = dq_op_q.bounds(inputs, node)
    assert lo.tolist() == [[11]] and hi.tolist() == [[12]]
