"""The ConvInteger hunt strategy (generator/families/conv_integer/hunt.py; the interface is generator/hunting.py),
over one fixed set of seeded draws (the same on every run for one hypothesis version): the examples rebuild from
their args and pass on the opconform backend, their probes hold only undefined data, and the draws kill the fault
models but those listed in UNREACHABLE."""

from __future__ import annotations

import dataclasses
import zlib

import pytest

from generator.families import conv_integer as fam
from generator.reference import conv_integer_faults as F

from family_cases import opconform_failures
from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

N = 160
UNREACHABLE = {
    "conv_integer.accumulate_float32": "needs a sum beyond 2**24, K > 258 products of 255 * 255: the strategy's "
                                       "K is at most 18 x 27",
}


@pytest.fixture(scope="module")
def examples(hypothesis_home):
    from hypothesis import strategies as st

    slices = fam.hunt(fam.OPSET)
    assert set(slices) == {"w_zp_per_tensor", "w_zp_per_channel"}
    return draw_examples(st.one_of(*slices.values()), N, zlib.crc32(b"conv_integer"))


def test_no_strategy_below_opset_10():
    assert fam.hunt(fam.OPSET - 1) is None


def test_examples_rebuild_and_pass_on_the_opconform_backend(examples, tmp_path):
    assert len(examples) == N
    assert_rebuilds(fam.rebuild, examples[::8])
    judged = [dataclasses.replace(ex.case, name=f"{ex.case.name}_{i}") for i, ex in enumerate(examples[::8])
              if ex.case is not None]
    assert judged and opconform_failures(judged, tmp_path) == []


def test_probes_hold_only_undefined_data(examples):
    for ex in examples:
        if ex.probe is not None:
            ci = fam.ci_of("hunt", ex.probe.meta["params"])
            for inputs in ex.probe.inputs:
                assert not fam.expected(ci, inputs).defined


def test_the_draws_reach_the_boundaries(examples):
    params = [ex.args["params"] for ex in examples]
    assert {p.get("auto_pad", "NOTSET") for p in params} == {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}
    assert {len(p["x_shape"]) for p in params} == {3, 4, 5}
    assert {(p["x_type"], p["w_type"]) for p in params} == {(a, b) for a in F.TYPES for b in F.TYPES}
    assert {p["w_zp"] for p in params} >= {"tensor", "channel", "absent", "one"}
    assert any(p.get("group", 1) > 1 for p in params) and any(max(p["dilations"]) > 1 for p in params)


def test_the_draws_kill_the_fault_models(examples):
    killed = hunt_kills("conv_integer", examples)
    reachable = {f.name for f in F.FAULTS} - set(UNREACHABLE)
    assert reachable <= killed, sorted(reachable - killed)
