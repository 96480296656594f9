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
