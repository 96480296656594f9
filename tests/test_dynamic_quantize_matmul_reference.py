"""The DynamicQuantizeMatMul reference: DynamicQuantizeLinear of the whole of A, then MatMulIntegerToFloat's scaled
product [READING_A_QUANT]; the bound's qerr is A's own requantization error, so the float product passes too."""

import numpy as np

from generator import dot_bound, dtypes
from generator.reference import dynamic_quantize_linear as dql
from generator.reference import dynamic_quantize_matmul as dqmm
from generator.reference import matmul_integer_to_float as mitf


def _spec(k: int, bias: bool = False) -> dict:
    slots = ["A", "B", "b_scale"] + (["bias"] if bias else [])
    return {"mode": "dot", "operands": "dynamic_quantize_matmul", "node": {}, "slots": slots,
            "accumulation": "float", "abs_bound": 2 * (k + 2 + bias)}


def test_it_is_dql_then_the_scaled_integer_product():
    rng = np.random.default_rng(0)
    a = rng.uniform(-3, 5, (3, 6)).astype(np.float32)
    b = rng.integers(-128, 128, (6, 4)).astype(np.int8)
    b_s, b_zp, bias = np.float32(0.01), np.int8(3), np.arange(4, dtype=np.float32)
    qa, a_s, a_zp = dql.dynamic_quantize_linear(a).outputs
    want = mitf.matmul_integer_to_float([qa, b, a_s, b_s, a_zp, b_zp, bias]).outputs[0]
    got = dqmm.dynamic_quantize_matmul([a, b, b_s, b_zp, bias]).outputs[0]
    assert np.array_equal(got, want)


def test_the_float_product_meets_the_bound_and_a_wrong_one_does_not():
    rng = np.random.default_rng(1)
    a = rng.uniform(-3, 5, (3, 6)).astype(np.float32)
    b = rng.integers(-128, 128, (6, 4)).astype(np.int8)
    b_s = np.full(4, 0.01, np.float32)
    inputs = [a, b, b_s]
    e = dqmm.dynamic_quantize_matmul(inputs).outputs[0]
    exact = (a.astype(np.float64) @ (b.astype(np.float64) * 0.01)).astype(np.float32)
    f32 = dtypes.get("float")
    assert dot_bound.check(_spec(6), inputs, e, exact, f32).all()
    assert not dot_bound.check(_spec(6), inputs, e, exact * np.float32(1.01), f32).all()


def test_a_on_the_grid_has_no_quantization_allowance():
    q = np.array([[0, 255, 17], [100, 3, 50]])
    a = ((q - 40) * 2.0 ** -4).astype(np.float32)
    b = np.ones((3, 2), np.int8)
    _, _, qerr = dqmm.dot_terms([a, b, np.float32(0.5)], {})
    assert np.all(qerr == 0)


def test_a_tie_allows_a_whole_step():
    """a / scale at k + 1/2 may round either way in a kernel whose scale differs in its last bit: one step."""
    a = np.array([[0.0, 255 * 0.25, 10.5 * 0.25]], np.float32)
    err = dqmm.requantization_error(a, *dql.dynamic_quantize_linear(a).outputs)
    assert err.tolist() == [[0.0, 0.0, 0.25]]


def test_undefined_quantizations_are_probes():
    b = np.ones((3, 2), np.int8)
    assert dqmm.dynamic_quantize_matmul([np.zeros((2, 3), np.float32), b, np.float32(1)]).reasons == \
        [dql.UNDEF_SCALE_ZERO]
    nan = np.zeros((2, 3), np.float32)
    nan[0, 1] = np.nan
    assert dqmm.dynamic_quantize_matmul([nan, b, np.float32(1)]).reasons == [dql.UNDEF_X_NAN]
    assert dqmm.dynamic_quantize_matmul([np.zeros((2, 0), np.float32), np.ones((0, 2), np.int8),
                                         np.float32(1)]).reasons == [dql.UNDEF_EMPTY]
