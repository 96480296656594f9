"""The chains family's QDQ patterns that onnxruntime fuses into com.microsoft QOperators (generator/families/
_chains_qops.py): every pattern in the three inputs modes with its rewrite named, expected values checked by hand
from the texts (DequantizeLinear, the float operator, QuantizeLinear's round half to even), and the fault models that
reproduce what onnxruntime 1.32.0 and OpenVINO 2026.4.1 were measured giving on them (the outputs quoted here)."""

from __future__ import annotations

import numpy as np
import pytest

from family_cases import generate
from generator import faults
from generator.families import _chains_qops as qops
from generator.families import chains
from generator.reference import chains as ref
from generator.reference import chains_faults as F
from generator.reference import dq_op_q

CASES = generate(chains)
FAULTS = {f.name: f for f in F.FAULTS}
PATTERNS = {"dq_add_q": "QLinearAdd", "dq_add_q_int8": "QLinearAdd", "dq_add_q_tail": "QLinearAdd",
            "dq_mul_q_tail": "QLinearMul", "dq_mul_q": "QLinearMul",
            "dq_sigmoid_q": "QLinearSigmoid", "dq_sigmoid_q_int8": "QLinearSigmoid",
            "dq_averagepool_q_pad_exclude": "QLinearAveragePool", "dq_averagepool_q_pad_include": "QLinearAveragePool",
            "dq_concat_q": "QLinearConcat", "dq_gemm_q": "QGemm", "dq_gemm_q_alpha": "QGemm",
            "dq_gemm_q_bias_scale": "QGemm", "dql_matmulinteger_scaled_bias": "DynamicQuantizeMatMul",
            "matmulinteger_scaled_bias": "MatMulIntegerToFloat"}


def _y(name: str) -> np.ndarray:
    return CASES[f"test_chain_{name}"].outputs[0][0]


def _fault_y(fault: str, name: str) -> np.ndarray:
    case = CASES[f"test_chain_{name}"]
    return np.asarray(faults.fault_outputs(FAULTS[fault], case.model, case.inputs[0], case.meta)[0])


@pytest.mark.parametrize("stem", sorted(PATTERNS))
def test_each_pattern_comes_in_three_modes_naming_its_rewrite_and_node(stem):
    for mode in ("fed", "initializers", "constant"):
        case = CASES[f"test_chain_{stem}_{mode}"]
        p = case.meta["params"]
        assert p["inputs"] == mode and p["qop"] == PATTERNS[stem] and p["rewrite"].endswith("_fusion")
        compare = case.meta["compare"]
        if PATTERNS[stem] in ("DynamicQuantizeMatMul", "MatMulIntegerToFloat"):
            assert compare["mode"] == "exact" and p["rewrite"] == "matmul_integer_to_float_fusion"
        elif PATTERNS[stem] == "QGemm":
            assert compare["chain"]["op"] == "Gemm" and p["rewrite"] == "qdq_gemm_fusion"
        else:
            assert compare["mode"] == "range" and compare["chain"]["op"] == PATTERNS[stem]
    model = CASES[f"test_chain_{stem}_initializers"].model
    inits = {i.name for i in model.graph.initializer}
    fed = {v.name for v in model.graph.input} - inits
    # the activations are fed; weights (Gemm's B and C, MatMulInteger's b), scales and zero points are initializers
    assert fed == ({"a"} if stem.startswith(("dq_gemm", "dql", "matmul")) else {"a", "b"} if stem.startswith(("dq_add", "dq_mul"))
                   else {"x0", "x1", "x2"} if stem == "dq_concat_q" else {"x"})


def test_add_rounds_the_quotient_half_to_even_then_adds_the_zero_point():
    y = _y("dq_add_q_fed")
    # A = 0: (0 - 128) / 16 = -8; B = 0: (0 - 3) / 8 = -0.375; -8.375 / 0.25 = -33.5 -> -34 (even) + 129 = 95
    assert y[0, 0] == 95
    # A = 2, B = 3: -7.875 + 0 -> -31.5 -> -32 + 129 = 97; A = 255, B = 255: 7.9375 + 31.5 -> 157.75 -> saturated
    assert y[0, 2] == 97 and y[15, 1] == 255
    assert y[0, 0] != 96  # onnxruntime 1.32's fused QLinearAdd: round(-33.5 + 129) = 96


def test_mul_and_concat_ties():
    # Mul: A = 48: (48 - 131) / 16 = -5.1875, B = 133: (133 - 129) / 4 = 1; / 0.125 = -41.5 -> -42 + 127 = 85
    assert _y("dq_mul_q_fed")[3, 0] == 85
    # Concat: X0 = 1: (1 - 128) / 8 = -15.875 / 0.25 = -63.5 -> -64 + 129 = 65; X1 = 255: (255 - 120) / 2 -> 255
    y = _y("dq_concat_q_fed")
    assert y[0, 0, 0] == 65 and y[0, 2, 1] == 255 and y.shape == (1, 6, 8)


def test_averagepool_counts_with_and_without_pads():
    # corner window: x = 255 alone, (255 - 129) / 8 = 15.75; excluded pads: / 1 -> 126 + 127 = 253;
    # included: / 4 = 3.9375 / 0.125 = 31.5 -> 32 (even) + 127 = 159
    assert _y("dq_averagepool_q_pad_exclude_fed")[0, 0, 0, 0] == 253
    assert _y("dq_averagepool_q_pad_include_fed")[0, 0, 0, 0] == 159


def test_sigmoid_over_every_uint8_value_is_the_rounded_logistic():
    y = _y("dq_sigmoid_q_fed").astype(np.int64).ravel()
    x = (np.arange(256) - 128) / 16
    want = np.clip(np.rint(256 / (1 + np.exp(-x))), 0, 255)  # no quotient lies within 1e-6 of a half-integer here
    assert y.size == 256 and np.array_equal(y, want)
    assert y[0] == 0 and y[-1] == 255


def test_the_dynamic_pattern_is_exact_with_its_ties():
    case = CASES["test_chain_dql_matmulinteger_scaled_bias_fed"]
    a, b, b_zp, b_scale, bias = case.inputs[0]
    assert ref.dql_scaled_is_exact(a, b, b_zp, b_scale, bias)
    q, scale, zp = ref.dynamic_quantize_linear(a).outputs
    assert float(scale) == 2 ** -6 and int(zp) == 128
    assert q[1, :4].tolist() == [128, 130, 128, 126]  # 0.5, 1.5, -0.5, -1.5 to even, + 128
    acc = (q.astype(np.int64) - 128) @ (b.astype(np.int64) - 117)
    assert np.array_equal(case.outputs[0][0], (acc * 2.0 ** -11 + bias).astype(np.float32))


def test_the_gemm_chain_is_exact_with_power_of_two_scales():
    case = CASES["test_chain_dq_gemm_q_fed"]
    spec = case.meta["compare"]
    from generator.dot_bound import operands
    e, lo, hi = dq_op_q.spec_bounds(spec, operands(case.model, case.inputs[0]))
    assert (lo == hi).all() and np.array_equal(e, case.outputs[0][0])


def test_exact_ties_finds_ties_between_unsaturated_neighbours_only():
    from generator import dtypes
    u8 = dtypes.get("uint8")
    e = lo = hi = np.zeros(3)
    assert qops.exact_ties(e, lo, hi, np.array([0.25, 1.5, 3.0]), 10, u8)
    assert not qops.exact_ties(e, lo, hi, np.array([0.25, 300.5, 3.0]), 10, u8)  # 311 / 312: saturated
    assert not qops.exact_ties(e, lo, np.ones(3), np.array([1.5, 1.5, 1.5]), 10, u8)  # a range there


def test_zero_point_first_is_what_onnxruntime_fused_add_and_mul_gave():
    """onnxruntime 1.32.0, graph_optimization_level all / extended (QLinearAdd, QLinearMul), measured."""
    add = _fault_y("chains.requant_zero_point_before_rounding", "dq_add_q_initializers").ravel()
    assert add[[0, 2, 4, 6, 8, 16]].tolist() == [96, 98, 98, 98, 162, 100]
    mul = _fault_y("chains.requant_zero_point_before_rounding", "dq_mul_q_initializers").ravel()
    assert mul[[48, 50, 52, 54, 56, 58]].tolist() == [86, 86, 88, 88, 90, 90]
    pool = _fault_y("chains.requant_zero_point_before_rounding", "dq_averagepool_q_pad_exclude_initializers").ravel()
    assert pool[[1, 3, 7, 10, 14]].tolist() == [62, 64, 186, 128, 188]


def test_bias_scale_assumed_is_what_onnxruntime_qgemm_gave():
    """onnxruntime 1.32.0 fuses DQ -> Gemm -> Q with a bias of scale 2 * a_scale * b_scale into QGemm, reading C in
    a_scale * b_scale: column 2 (C = 7) comes out 3 or 4 lower."""
    y = _fault_y("chains.gemm_bias_scale_assumed", "dq_gemm_q_bias_scale_initializers").ravel()
    assert y[[2, 5, 8, 11]].tolist() == [133, 120, 136, 151]
    assert _y("dq_gemm_q_bias_scale_initializers").ravel()[[2, 5, 8, 11]].tolist() == [137, 123, 139, 154]


def test_pads_quantized_zero_is_what_openvino_gave():
    """OpenVINO 2026.4.1 CPU on DQ -> AveragePool(count_include_pad=1, pads 1) -> Q with initializers, measured."""
    y = _fault_y("chains.averagepool_pads_quantized_zero", "dq_averagepool_q_pad_include_initializers").ravel()
    measured = [62, 30, 0, 31, 158, 62, 0, 92, 0, 30, 63, 31, 94, 188, 93, 0, 0, 0]
    # all but element 12, a tie (-33.5 + 127), which OpenVINO rounds with the zero point added first as well
    # (chains.requant_zero_point_before_rounding: round(93.5) = 94)
    assert [i for i in range(18) if y[i] != measured[i]] == [12] and y[12] == 93
    # count_include_pad=0: the pads are not counted, the fault changes nothing
    exclude = _fault_y("chains.averagepool_pads_quantized_zero", "dq_averagepool_q_pad_exclude_initializers")
    assert np.array_equal(exclude, _y("dq_averagepool_q_pad_exclude_initializers"))


def test_concat_faults_read_the_wrong_parameters():
    first = _fault_y("chains.concat_first_input_params", "dq_concat_q_fed")
    raw = _fault_y("chains.concat_requant_skipped", "dq_concat_q_fed")
    y = _y("dq_concat_q_fed")
    assert np.array_equal(first[:, :2], y[:, :2]) and not np.array_equal(first[:, 2:5], y[:, 2:5])
    x0 = CASES["test_chain_dq_concat_q_fed"].inputs[0][0]
    assert np.array_equal(raw[:, :2], x0)
    assert np.array_equal(raw[:, 5:], y[:, 5:])  # the last input is in the output's own scale and zero point


def test_equivalence_proofs_hold_where_they_say():
    no_ties = {"pattern": "dq_sigmoid_q", "ties": False, "zero_point": 0, "zero_point_type": "uint8"}
    assert FAULTS["chains.requant_round_half_away"].equivalent(no_ties)
    assert FAULTS["chains.requant_round_half_away"].equivalent(dict(no_ties, ties=True)) is None
    alpha1 = {"pattern": "dq_gemm_q", "alpha": 1.0, "c_factor": 1.0}
    assert FAULTS["chains.gemm_bias_times_alpha"].equivalent(alpha1)
    assert FAULTS["chains.gemm_bias_scale_assumed"].equivalent(alpha1)
    assert FAULTS["chains.gemm_bias_scale_assumed"].equivalent(dict(alpha1, c_factor=2.0)) is None


def test_the_tail_cases_put_their_ties_in_the_last_vector():
    for stem in ("dq_add_q_tail", "dq_mul_q_tail"):
        case = CASES[f"test_chain_{stem}_fed"]
        a = case.inputs[0][0]
        assert a.shape == (33,) and a[-4:].tolist() == [130, 126, 134, 122]
        assert ((a[:-4].astype(int) - 128) % 4 == 0).all() and case.meta["params"]["ties"]
    # Add: (130 - 128) / 16 + (5 - 3) / 8 = 0.375 / 0.25 = 1.5 -> 2 (even) + 129 = 131
    assert _y("dq_add_q_tail_fed")[-4] == 131
    # Mul: (130 - 128) / 16 * (131 - 129) / 2 = 0.125 / 0.25 = 0.5 -> 0 (even) + 127 = 127
    assert _y("dq_mul_q_tail_fed")[-4] == 127


def test_the_static_matmul_integer_pattern_is_exact():
    """a_scale 2**-7, b_scale 2**-6: y = (a - 129) . (b + 1) * 2**-13 + bias, every step exact in float32."""
    case = CASES["test_chain_matmulinteger_scaled_bias_fed"]
    a, a_zp, a_scale, b, b_zp, b_scale, bias = case.inputs[0]
    acc = (a.astype(np.int64) - 129) @ (b.astype(np.int64) + 1)
    assert np.array_equal(case.outputs[0][0], (acc * 2.0 ** -13 + bias).astype(np.float32))
    assert case.outputs[0][0][0, 0] == np.float32(126 * -127 * 16 * 2.0 ** -13 + 0.5)  # a row of 255, b column -128
