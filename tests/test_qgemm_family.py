"""The QGemm family (generator/families/qgemm/): every case of the default profile written to disk passes on the
opconform backend (negatives refused, probes only undefined data); what each part promises is there (every type
triple, the transposes, alpha, C's forms, per column, the axes, the negatives, the probes, every fault class)."""

from __future__ import annotations

import pytest

from generator.families import qgemm as fam
from generator.reference import qgemm as ref
from generator.reference import qgemm_faults as F

from family_cases import generate, opconform_failures


@pytest.fixture(scope="module")
def cases() -> dict:
    return generate(fam)


def test_the_opconform_backend_passes_every_case(cases, tmp_path):
    assert opconform_failures(cases.values(), tmp_path) == []


def test_every_case_is_stamped_and_judged_cases_rest_on_the_readings(cases):
    for name, case in cases.items():
        assert name.startswith("test_qgemm_") and case.meta["family"] == "qgemm"
        assert case.meta["domain"] == ref.DOMAIN
        if case.kind == "node":
            assert ref.READING_FORMULA in case.meta["reading"]
            quantized = case.meta["params"]["y_type"] != "float"
            assert (ref.READING_REQUANT if quantized else ref.READING_FLOAT) in case.meta["reading"]
            assert case.meta["compare"]["mode"] == ("exact" if quantized else "dot")


def test_the_catalogue_covers_types_attributes_c_and_quantization(cases):
    node = [c for c in cases.values() if c.kind == "node"]
    p = [c.meta["params"] for c in node]
    assert {(x["a_type"], x["b_type"], x["y_type"]) for x in p} >= {
        (a, b, y) for a in ref.INT_TYPES for b in ref.INT_TYPES for y in ref.INT_TYPES + ("float",)}
    assert {(x["transA"], x["transB"]) for x in p} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert {1.0, 0.5, -1.5, 0.0, 3.0} <= {x["alpha"] for x in p}
    assert {(), (1,), (5,), (1, 5), (3, 1), (3, 5), (1, 1)} <= {tuple(x["c_shape"]) for x in p if x["c_shape"]
                                                               is not None}
    assert {F.group_key(c.meta) for c in node} == {F.key_of(*g) for g in F.all_groups()}
    assert {0, 1, 67} <= {x["K"] for x in p}


def test_axes_negatives_and_probes(cases):
    names = set(cases)
    for want in ("test_qgemm_explicit_defaults_uint8", "test_qgemm_explicit_defaults_float", "test_qgemm_vector_tail",
                 "test_qgemm_c_int32_overflow_probe", "test_qgemm_scales_bad_probe", "test_qgemm_c_int32_max"):
        assert want in names, want
    explicit = cases["test_qgemm_explicit_defaults_uint8"].model.graph.node[0]
    assert {a.name for a in explicit.attribute} == set(ref.DEFAULTS)
    tail = cases["test_qgemm_vector_tail"]
    assert len(tail.inputs) >= 10 and tail.model.graph.output[0].type.tensor_type.shape.dim[1].dim_param == "N"
    negatives = [c for c in cases.values() if c.kind == "negative"]
    assert len(negatives) >= 18 and all(c.meta["invalid"] for c in negatives)
    for probe in (c for c in cases.values() if c.kind == "probe"):
        assert probe.meta["undefined"]


def test_random_configurations_change_with_the_seed():
    from generator.families.qgemm.axes_cases import random_configurations
    assert [g.params() for g in random_configurations(4, 0)] != [g.params() for g in random_configurations(4, 1)]
    assert [g.params() for g in random_configurations(4, 0)] == [g.params() for g in random_configurations(4, 0)]
