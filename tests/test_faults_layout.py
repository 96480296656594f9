"""Layout fault models (generator/reference/layout_faults.py): faulty NHWC -> NCHW converters, judged on the
family's graph cases; the witness catalogue (generator/witness/layout.py)."""

from __future__ import annotations

import numpy as np
import pytest

from generator import witness
from generator.families import layout as fam
from generator.reference import layout as L
from generator.reference import layout_faults as LF

CATALOGUE = witness.load(fam.FAMILY.name)


@pytest.fixture(scope="module")
def cases():
    """The default profile's graph cases, in memory (their meta without "name", as gen-cases holds them)."""
    return [c for unit in fam.work("default", 0) for c in unit()]


def _kills(fault, case) -> list[int]:
    return [i for i, (x, y) in enumerate(zip(case.inputs, case.outputs))
            if LF.killed(fault, case.meta, y, LF.run(fault, case.model, x, case.meta))]


def test_catalogue_names_and_fields():
    names = [f.name for f in LF.FAULTS]
    assert len(set(names)) == len(names) and all(n.startswith("layout.") for n in names)
    assert all(f.what and callable(f.fn) for f in LF.FAULTS)
    assert {LF.group_key(c) for c in ({}, {"params": {"what": "x"}})} == {LF.GROUP}


def test_source_pattern_rebuilds_the_case(cases):
    """The reference converter, applied to the rebuilt source graph and run by the fault executor, gives the
    expected outputs of every case (so a kill is the fault's doing, not the harness's)."""
    for c in cases:
        p = fam.source_pattern(c.meta)
        assert fam.source_pattern(dict(c.meta, name=c.name)).what == p.what
        converted = LF.REFERENCE.fn(p.graph, p.explicit)
        reference = L.convert(p.graph, p.explicit)
        assert converted.perms == reference.perms
        assert [(o.type, o.inputs, o.outputs, o.attrs) for o in converted.graph.ops] == \
               [(o.type, o.inputs, o.outputs, o.attrs) for o in reference.graph.ops]
        assert _kills(LF.REFERENCE, c) == [], c.name


def test_every_fault_is_killed_by_a_graph_case(cases):
    unkilled = [f.name for f in LF.FAULTS if not any(_kills(f, c) for c in cases)]
    assert not unkilled


def test_catalogue_witnesses_kill_their_faults(cases):
    by_name = {c.name: c for c in cases}
    faults = CATALOGUE["groups"][LF.GROUP]["faults"]
    assert set(faults) == set(LF.BY_NAME)
    for name, found in faults.items():
        for w in found["witnesses"]:
            assert _kills(LF.BY_NAME[name], by_name[w["pattern"]]) == w["datasets"], (name, w["pattern"])


@pytest.mark.parametrize("fault, pattern", [
    ("layout.softmax_axis_not_remapped", "test_layout_softmax_channel_axis"),
    ("layout.transpose_perm_not_remapped", "test_layout_transpose_in_propagated_region"),
    ("layout.broadcast_reshaped_not_transposed", "test_layout_mul_broadcast_wc"),
    ("layout.axis_by_size", "test_layout_conv_concat_ambiguous_4x4x4"),
    ("layout.reduced_layout_dropped", "test_layout_mean_h_keepdims0_softmax"),
    ("layout.explicit_layout_on_terminate_output_refused", "test_layout_reshape_concat_explicit_layout"),
    ("layout.average_pool_counts_padding", "test_layout_pool_max_then_average"),
])
def test_the_measured_converter_mistakes_are_killed_where_docs_layout_says(cases, fault, pattern):
    case = next(c for c in cases if c.name == pattern)
    assert _kills(LF.BY_NAME[fault], case)


def test_faults_that_only_matter_elsewhere_pass_distinct_prime_shapes(cases):
    """axis_by_size guesses right where every size is distinct (it is killed only by the C == H == W case)."""
    fault = LF.BY_NAME["layout.axis_by_size"]
    killers = [c.name for c in cases if _kills(fault, c)]
    assert killers == ["test_layout_conv_concat_ambiguous_4x4x4"]


def test_killed_rules():
    meta = {"compare": {"mode": "allclose", "rtol": 1e-4, "atol": 1e-4, "outputs": {"y": {"atol": 1e-3}}},
            "params": {"what": next(iter(fam.CATALOGUE.values()))(np.random.default_rng(0)).what}, "seed": 0}
    fault = LF.FAULTS[0]
    name = fam.source_pattern(meta).graph.outputs[0]
    meta["compare"]["outputs"] = {name: {"atol": 1e-3}}
    e = [np.array([1.0, -2.0, 0.0], np.float32)]
    assert not LF.killed(fault, meta, e, [e[0] + np.float32(5e-4)])  # within the output's atol
    assert LF.killed(fault, meta, e, [e[0] + np.float32(5e-3)])
    assert LF.killed(fault, meta, e, [e[0].reshape(1, 3)])  # another shape
    assert LF.killed(fault, meta, e, [])  # the conversion or the run raised
    assert not LF.killed(fault, meta, [np.array([np.nan], np.float32)], [np.array([np.nan], np.float32)])
