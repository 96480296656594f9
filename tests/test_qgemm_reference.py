"""The QGemm reference (generator/reference/qgemm.py) against hand examples and an independent formula written here
from the text (Fractions, element by element): x = alpha * a_scale * b_scale[n] * (acc + C), y = saturate(round half
to even (x / y_scale) + y_zero_point); the float output within the dot bound; the shapes and types the text rules
out; the undefined elements."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from generator import dtypes
from generator.reference import qgemm as ref

U8, I8, F32 = np.uint8, np.int8, np.float32


def _formula(inputs, attrs):
    """The text's formula in exact rationals, element by element (no numpy matmul, no requantize.py)."""
    a, sa, za, b, sb, zb, c, ys, yz = inputs + [None] * (9 - len(inputs))
    a, b = np.asarray(a).astype(int), np.asarray(b).astype(int)
    a = a.T if attrs.get("transA") else a
    b = b.T if attrs.get("transB") else b
    m, k = a.shape
    n = b.shape[1]
    alpha = Fraction(float(np.float32(attrs.get("alpha", 1.0))))
    zbv = np.broadcast_to(np.asarray(zb).astype(int).reshape(-1), (n,))
    sbv = np.broadcast_to(np.asarray(sb, np.float64).reshape(-1), (n,))
    cv = np.broadcast_to(np.zeros((), int) if c is None else np.asarray(c).astype(int), (m, n))
    out = np.empty((m, n), dtype=object)
    for i in range(m):
        for j in range(n):
            acc = sum((int(a[i, q]) - int(np.asarray(za).reshape(-1)[0])) * (int(b[q, j]) - int(zbv[j]))
                      for q in range(k))
            x = alpha * Fraction(float(np.asarray(sa).reshape(-1)[0])) * Fraction(float(sbv[j])) * (acc + int(cv[i, j]))
            if ys is None:
                out[i, j] = x
            else:
                t = dtypes.from_numpy(np.asarray(yz).dtype)
                q = round(x / Fraction(float(np.asarray(ys).reshape(-1)[0]))) + int(np.asarray(yz).reshape(-1)[0])
                out[i, j] = min(max(q, t.int_min), t.int_max)
    return out


def test_hand_example_with_c_and_ties():
    a = np.array([[1, 2], [3, 4]], U8)
    b = np.array([[1, 0], [0, 1]], I8)
    o = ref.qgemm([a, F32(0.5), U8(0), b, F32(1), I8(0), np.array([1, -1], np.int32), F32(1), U8(10)], {})
    # (A B + C) * 0.5 = [[1, 0.5], [2, 1.5]] -> ties to even [[1, 0], [2, 2]] + 10
    assert o.outputs[0].tolist() == [[11, 10], [12, 12]] and o.defined


def test_hand_example_alpha_negative_transposed_float():
    a = np.array([[1, 2], [3, 4]], U8)  # transA: A' = [[1, 3], [2, 4]]
    b = np.eye(2, dtype=I8)
    (y,) = ref.qgemm([a, F32(0.5), U8(0), b, F32(1), I8(0)], {"alpha": -2.0, "transA": 1}).outputs
    assert y.dtype == np.float32 and y.tolist() == [[-1, -3], [-2, -4]]


def test_alpha_multiplies_c_too():
    """C's scale is alpha * a_scale * b_scale (beta = 1): alpha 2 doubles C's contribution."""
    a, b = np.zeros((1, 1), U8), np.zeros((1, 1), I8)
    (y,) = ref.qgemm([a, F32(1), U8(0), b, F32(1), I8(0), np.array([3], np.int32)], {"alpha": 2.0}).outputs
    assert y.tolist() == [[6.0]]


@pytest.mark.parametrize("seed", range(12))
def test_matches_the_independent_formula(seed):
    rng = np.random.default_rng(seed)
    m, k, n = rng.integers(1, 5, 3)
    ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    at, bt, yt = (rng.choice([U8, I8]) for _ in range(3))
    a = rng.integers(np.iinfo(at).min, np.iinfo(at).max + 1, (k, m) if ta else (m, k)).astype(at)
    b = rng.integers(np.iinfo(bt).min, np.iinfo(bt).max + 1, (n, k) if tb else (k, n)).astype(bt)
    per_col = bool(rng.integers(0, 2))
    sb = (2.0 ** -rng.integers(4, 9, n) if per_col else np.asarray(2.0 ** -6)).astype(F32)
    zb = (rng.integers(-5, 5, n) if per_col else np.asarray(3)).astype(bt)
    c = rng.integers(-3000, 3000, (m, n)).astype(np.int32)
    alpha = float(rng.choice([1.0, 0.5, -1.5, 3.0, 0.1]))
    quant = bool(rng.integers(0, 2))
    inputs = [a, F32(2.0**-5), np.asarray(1).astype(at), b, sb, zb, c] + \
        ([F32(2.0**-9), np.asarray(5).astype(yt)] if quant else [])
    attrs = {"alpha": alpha, "transA": ta, "transB": tb}
    want = _formula(inputs, attrs)
    (y,) = ref.qgemm(inputs, attrs).outputs
    if quant:
        assert y.astype(int).tolist() == want.astype(int).tolist()
    else:
        assert y.tolist() == [[float(np.float32(float(v))) for v in row] for row in want]
        r, bnd, qerr = ref.dot_terms(inputs, ref.compare_node(attrs))
        assert np.allclose(r, want.astype(float)) and (bnd >= np.abs(r) - 1e-9).all() and not qerr.any()


def test_saturation_and_int32_undefined():
    a, b = np.full((1, 2), 255, U8), np.full((2, 1), 255, U8)
    o = ref.qgemm([a, F32(1), U8(0), b, F32(1), U8(0), np.array([[2**31 - 1]], np.int32), F32(1), U8(0)], {})
    assert not o.defined and o.reasons == [ref.UNDEF_ACC_INT32]
    o = ref.qgemm([a, F32(1), U8(0), b, F32(1), U8(0), None, F32(1), I8(0)], {})
    assert o.outputs[0].tolist() == [[127]]


def test_bad_scales_are_undefined():
    a, b = np.ones((1, 1), U8), np.ones((1, 1), U8)
    o = ref.qgemm([a, F32(0), U8(0), b, F32(1), U8(0)], {})
    assert o.reasons == [ref.UNDEF_SCALE]


@pytest.mark.parametrize("shapes, why", [
    ([(3, 4), (), (), (5, 5), (), ()], "K"), ([(3, 4), (3,), (), (4, 5), (), ()], "scalar"),
    ([(3, 4), (), (), (4, 5), (4,), ()], "per column"), ([(3, 4), (), (), (4, 5), (), (), (3,)], "broadcastable"),
    ([(3, 4), (), (), (4, 5), (), (), None, (), None], "together"), ([(3, 4, 1), (), (), (4, 5), (), ()], "2-D")])
def test_shapes_the_text_rules_out(shapes, why):
    with pytest.raises(ValueError, match=why):
        ref.check_shapes(shapes, {})


def test_c_forms_and_transposed_per_column():
    for c in [(), (1,), (5,), (1, 5), (3, 1), (3, 5), (1, 1)]:
        assert ref.check_shapes([(3, 4), (), (), (4, 5), (5,), (), c], {}) == (3, 4, 5)
    assert ref.check_shapes([(4, 3), (), (), (5, 4), (5,), (5,)], {"transA": 1, "transB": 1}) == (3, 4, 5)


def test_types_the_text_rules_out():
    t = dtypes.get
    ok = [t("uint8"), t("float"), t("uint8"), t("int8"), t("float"), t("int8"), t("int32"), t("float"), t("uint8")]
    ref.validate({}, 1, ok, [2] * 9)
    for j, bad in ((0, "int16"), (6, "int8"), (8, "int32"), (1, "double"), (2, "int8")):
        with pytest.raises(ValueError):
            ref.validate({}, 1, ok[:j] + [t(bad)] + ok[j + 1:], [2] * 9)
    with pytest.raises(ValueError, match="together"):
        ref.validate({}, 1, ok[:8], [2] * 8)


def test_compare_node_round_trips_alpha():
    for alpha in (1.0, -1.5, 0.1, 0.0):
        assert ref.node_attrs(ref.compare_node({"alpha": alpha, "transB": 1})) == {"alpha": float(F32(alpha)),
                                                                                  "transB": 1}
