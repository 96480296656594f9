"""The axes of generation (generator/axes.py) in the DynamicQuantizeLinear family (issue 21): vector tails, the
opset boundary, NaN payloads, and the readings its judged cases rest on."""

from __future__ import annotations

import numpy as np
import pytest

from generator import axes, dtypes, faults
from generator.families import dynamic_quantize_linear as fam
from generator.reference import dynamic_quantize_linear as ref
from generator.reference import dynamic_quantize_linear_faults as F

F32 = np.float32
FAULTS = {f.name: f for f in F.FAULTS}
TAIL = [f"dynamic_quantize_linear.min_max_skip_tail{w}" for w in F.TAIL_WIDTHS]


def _cases(name: str):
    flags, sets = fam.CATALOGUE[name]()
    return list(fam.cases_of(name, sets, flags, 0))


def _kills(case, fault) -> list[int]:
    types = [dtypes.from_numpy(o.dtype) for o in case.outputs[0]]
    return [i for i, (inputs, outputs) in enumerate(zip(case.inputs, case.outputs))
            if faults.differs(outputs, faults.fault_outputs(fault, case.model, inputs, case.meta), types)]


def test_every_fault_says_where_it_was_seen():
    assert all(f.seen_in.strip() for f in F.FAULTS)


@pytest.mark.parametrize("name", TAIL)
def test_tail_fault_is_the_reference_on_whole_vectors(name):
    w = int(name.rsplit("tail", 1)[1])
    rs = np.random.RandomState(w)
    for k in (1, 2, 3):
        x = rs.uniform(-5, 5, w * k).astype(F32)
        assert not faults.differs(list(ref.dynamic_quantize_linear(x).outputs), FAULTS[name].fn([x], {}, 11, []),
                                  [dtypes.get("uint8"), dtypes.get("float"), dtypes.get("uint8")])


@pytest.mark.parametrize("name", TAIL)
def test_min_last_kills_each_tail_fault_exactly_where_the_minimum_is_in_a_partial_vector(name):
    (case,) = _cases("vector_tail_min_last")
    w = int(name.rsplit("tail", 1)[1])
    lengths = axes.tail_lengths()
    assert [x[0].size for x in case.inputs] == list(lengths)
    killed = {lengths[i] for i in _kills(case, FAULTS[name])}
    assert killed == {n for n in lengths if n > w and n % w}


def test_max_last_and_tie_last_kill_their_faults():
    (mx,) = _cases("vector_tail_max_last")
    for name in TAIL:
        assert _kills(mx, FAULTS[name]), name
    (tie,) = _cases("vector_tail_y_tie_last")
    lengths = axes.tail_lengths(short=True)
    killed = {lengths[i] for i in _kills(tie, FAULTS["dynamic_quantize_linear.y_tail_round_half_away"])}
    assert 9 in killed and 8 not in killed and 16 not in killed


def test_tail_cases_share_one_model_of_symbolic_length():
    (case,) = _cases("vector_tail_min_last")
    dim = case.model.graph.input[0].type.tensor_type.shape.dim
    assert len(dim) == 1 and dim[0].dim_param == "n"
    assert case.model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "n"
    assert all(x[0][-1] == F32(fam.TAIL_MIN) for x in case.inputs)


def test_tie_is_an_even_tie():
    scale, _ = ref.quantization_parameters(np.array([fam.TAIL_MIN, fam.TAIL_MAX], F32))
    q = F32(fam.tail_tie()) / scale
    assert q - np.floor(q) == 0.5 and int(np.floor(q)) % 2 == 0


def test_nonfinite_probe_has_every_nan_kind_and_no_expectation():
    cases = _cases("nonfinite_tail_probe")
    assert [c.kind for c in cases] == ["probe"]
    bits = {int(x[0].view(np.uint32)[-1]) for x in cases[0].inputs}
    _, nans = axes.nan_values("float")
    assert set(nans.view(np.uint32).tolist()) | {0x7F800000, 0xFF800000} == bits


def test_opset_boundary_cases_resolve_to_version_11():
    assert fam.boundary_opsets(28) == [12, 28] and fam.boundary_opsets(12) == [12] and fam.boundary_opsets(11) == []
    cases = list(fam.boundary_cases(28))
    assert [c.name for c in cases] == ["test_dynamicquantizelinear_mixed_opset12",
                                       "test_dynamicquantizelinear_mixed_opset28"]
    for c in cases:
        assert c.model.opset_import[0].version == c.meta["opset"] and F.group_key(c.meta) == "opset=11"
    assert [c.name for u in fam.work("quick", 0, 11) for c in u() if "opset" in c.name] == \
        ["test_dynamicquantizelinear_witness_opset11"]


def test_readings_mark_the_ieee_cases_only():
    (overflow,) = _cases("range_overflow")
    assert overflow.meta["reading"] == ref.READING_RANGE_OVERFLOW
    (subnormal,) = _cases("scale_subnormal")
    assert ref.READING_SUBNORMAL_SCALE in subnormal.meta["reading"]
    for name in ("mixed", "y_ties", "vector_tail_min_last"):
        assert "reading" not in _cases(name)[0].meta
    assert all("reading" not in c.meta for c in _cases("probe"))


def test_openvino_measured_outputs_are_reproduced():
    """OpenVINO 2026.4.1 CPU, measured here on the default suite's data sets that no fault model explained."""
    tiny = float(np.finfo(F32).tiny)
    _, sets = fam.CATALOGUE["scale_subnormal"]()
    y, s, z = FAULTS["dynamic_quantize_linear.zero_point_reciprocal_y_from_range"].fn([sets[1]], {}, 11, [])
    assert sets[1].tolist() == np.array([-tiny, tiny, 0.0, -0.5 * tiny, 1e-45, -1e-45], F32).tolist()
    assert y.tolist() == [127, 255, 255, 191, 255, 255] and int(z) == 255
    _, sets = fam.CATALOGUE["all_positive"]()
    y, s, z = FAULTS["dynamic_quantize_linear.fake_quantize_fma"].fn([sets[2]], {}, 11, [])
    assert y.tolist() == [255, 85, 170, 60, 77, 8] and int(z) == 0 and int(s.view(np.uint32)) == 0x33fca528
    for name in ("zero_point_reciprocal_y_from_range", "fake_quantize_fma"):  # each differs from the reference there
        assert not np.array_equal(FAULTS["dynamic_quantize_linear." + name].fn([sets[2]], {}, 11, [])[1],
                                  ref.dynamic_quantize_linear(sets[2]).outputs[1])
