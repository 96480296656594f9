"""The QLinearMatMul family (generator/families/qlinear_matmul/): every case of the default profile written to disk
passes on the opconform backend (negatives refused, probes only undefined data); what each part promises is there
(both versions, every type triple, the shapes, the quantization forms, the axes, the negatives, the probes)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.families import qlinear_matmul as fam
from generator.reference import qlinear_matmul as ref
from generator.reference import qlinear_matmul_faults as F

from family_cases import generate, opconform_failures


@pytest.fixture(scope="module")
def cases() -> dict:
    return generate(fam)


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_case_is_stamped_and_judged_cases_rest_on_the_reading(cases):
    for name, case in cases.items():
        assert name.startswith("test_qlinearmatmul_") and case.meta["family"] == "qlinear_matmul"
        if case.kind == "node":
            assert ref.READING_EXACT in case.meta["reading"]
            assert case.meta["opset"] in range(10, 30)


def test_the_catalogue_covers_types_versions_shapes_and_quantization(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    triples = {(c.meta["params"]["a_type"], c.meta["params"]["b_type"], c.meta["params"]["y_type"], c.meta["opset"])
               for c in node}
    assert {(a, b, y, o) for a in ref.INT_TYPES for b in ref.INT_TYPES for y in ref.INT_TYPES for o in (10, 21)} \
        <= triples
    classes = {F.group_key(c.meta) for c in node}
    assert classes >= {F.key_of(*g) for g in F.all_groups()}  # the witness cases alone give every class
    scale_types = {c.meta["params"]["scale_type"] for c in node}
    assert scale_types == {"float", "float16", "bfloat16"}
    assert {"vector_tail", "opset20", "opset21", "opset22"} <= {n.removeprefix("test_qlinearmatmul_")
                                                                for n in cases}


def test_outputs_saturate_at_both_ends_and_ties_occur(cases):
    y = cases["test_qlinearmatmul_saturate_both_ends"].outputs
    values = np.concatenate([o[0].reshape(-1) for o in y])
    assert values.min() == -128 and values.max() == 127
    tail = cases["test_qlinearmatmul_vector_tail"]
    for inputs, (out,) in zip(tail.inputs, tail.outputs):
        assert out[:, -1].tolist() == [int(inputs[7]), int(inputs[7]) + 2]  # 0.5 -> 0 and 2.5 -> 2: to even


def test_negatives_and_probes(cases):
    negatives = {n for n, c in cases.items() if c.kind == "negative"}
    assert len(negatives) == len(fam.negatives.NEGATIVES)
    probes = {c.name: c.meta["undefined"] for c in cases.values() if c.kind == "probe"}
    assert {r for reasons in probes.values() for r in reasons} == {ref.UNDEF_ACC_INT32, ref.UNDEF_SCALE,
                                                                  ref.UNDEF_FLOAT8}


def test_below_opset_10_nothing_and_at_opset_10_no_opset_21_case():
    assert fam.work("default", 0, 9) == []
    old = generate(fam, max_opset=10)
    assert old and all(c.meta["opset"] == 10 for c in old.values())


def test_empty_operands_and_2d_against_batched(cases):
    """K = 0: y is y_zero_point everywhere (the empty sum, no zero-point term); M = 0 / N = 0: empty y; a 2-D operand
    against a batched one broadcasts as numpy.matmul."""
    k0 = cases["test_qlinearmatmul_k_0"]
    for inputs, (y,) in zip(k0.inputs, k0.outputs):
        assert y.shape == (3, 4) and (y == inputs[7]).all() and int(inputs[2]) != 0
    assert cases["test_qlinearmatmul_m_0"].outputs[0][0].shape == (0, 3)
    assert cases["test_qlinearmatmul_n_0"].outputs[0][0].shape == (3, 0)
    assert cases["test_qlinearmatmul_a_2d_b_batched"].outputs[0][0].shape == (2, 1, 3, 5)
    assert cases["test_qlinearmatmul_a_batched_b_2d"].outputs[0][0].shape == (1, 2, 3, 5)


def test_float16_slots_each_hold_a_subnormal_that_a_float16_multiplier_gets_wrong(cases):
    """Data set i holds a float16 subnormal in scale slot i (a_scale, b_scale, y_scale) and the others normal; a
    multiplier computed in float16 changes y there, a float32 one does not."""
    case = cases["test_qlinearmatmul_scales_float16_slots"]
    faults = {f.name: f for f in F.FAULTS}
    assert len(case.inputs) == 3
    for slot, (inputs, (y,)) in enumerate(zip(case.inputs, case.outputs)):
        scales = [float(inputs[i]) for i in (1, 4, 6)]
        assert [0 < v < 2.0**-14 for v in scales] == [i == slot for i in range(3)]
        assert inputs[1].dtype == np.float16
        for name, differs in (("qlinear_matmul.requant_scale_type", True), ("qlinear_matmul.requant_float32", False)):
            assert (not np.array_equal(faults[name].fn(inputs, {}, 21, [])[0], y)) == differs, (slot, name)


def test_negatives_that_rest_on_a_reading_say_so(cases):
    """A K vector for a or b is invalid only on READING_PER_COLUMN (the text's 'K element vector ... for per
    column', read literally, allows it); a vector y_scale and b_scale [N] with b_zero_point [1, N] by the same-shape
    sentence alone, which their "invalid" names."""
    for what in ("a_scale_per_column", "b_scale_per_row"):
        assert cases[f"test_qlinearmatmul_negative_{what}"].meta["reading"] == ref.READING_PER_COLUMN
    for what in ("y_scale_vector", "b_scale_n_zero_point_1n"):
        meta = cases[f"test_qlinearmatmul_negative_{what}"].meta
        assert "reading" not in meta and "Scale and zero point must have same shape" in meta["invalid"]
