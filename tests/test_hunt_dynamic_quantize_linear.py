"""The DynamicQuantizeLinear hunt strategy (generator/families/dynamic_quantize_linear.py, `hunt`; the interface is
generator/hunting.py), over a fixed set of seeded draws:
  1. every example is written and read back as a valid case; the node case holds only inputs the reference
     defines, the probe only inputs it leaves undefined (every reason of the reference shows up);
  2. our backend passes every drawn node case;
  3. the draws kill every fault model of the family (generator/reference/dynamic_quantize_linear_faults.py):
     the strategy is biased to where they part from the reference;
and rebuild(args) gives every example again (what `opconform hunt --keep` relies on).
"""

from __future__ import annotations


import numpy as np
import pytest

from generator.families import dynamic_quantize_linear as fam
from generator.hunting import Example
from generator.reference import dynamic_quantize_linear as ref
from generator.reference import dynamic_quantize_linear_faults as F
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_runs

# Ten seeded runs of 30 draws (300 in all): hypothesis' generation clusters its later examples around earlier
# ones, so several short runs spread the draws wider than one long run.
RUNS, PER_RUN = 10, 30
N_WRITTEN = 40  # written, read back and run (the probes: as many again)
# Faults no draw of this strategy can kill, each with the reason (none: every one is reachable).
UNREACHABLE: dict[str, str] = {}


@pytest.fixture(scope="module")
def examples(hypothesis_home) -> list[Example]:
    return draw_runs(fam.hunt(fam.OPSET), RUNS, PER_RUN)


def test_no_strategy_below_the_operators_opset():
    assert fam.hunt(fam.OPSET - 1) is None


def test_examples_are_valid_cases_and_probes_hold_only_undefined_inputs(examples, tmp_path):
    reasons = set()
    shapes = set()
    for i, ex in enumerate(examples[:N_WRITTEN] + [e for e in examples if e.probe is not None][:N_WRITTEN]):
        assert ex.case is not None or ex.probe is not None
        for case, kind in ((ex.case, "node"), (ex.probe, "probe")):
            if case is None:
                continue
            assert case.kind == kind and len(case.inputs) == 1
            assert F.group_key(case.meta) == "opset=11" and case.meta["params"] == {"what": "hunt"}
            write_case(case, tmp_path / str(i))
            loaded = read_case(tmp_path / str(i) / kind / case.name)
            (x,) = loaded.inputs[0]
            assert x.dtype == np.float32 and x.tobytes() == case.inputs[0][0].tobytes()
            outcome = ref.dynamic_quantize_linear(x)
            if kind == "probe":
                assert not outcome.defined and loaded.outputs is None
                assert case.meta["undefined"] == outcome.reasons
                reasons.update(outcome.reasons)
            else:
                assert outcome.defined
                shapes.add(x.ndim)
                for got, want in zip(loaded.outputs[0], outcome.outputs):
                    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert reasons == {ref.UNDEF_EMPTY, ref.UNDEF_X_NAN, ref.UNDEF_SCALE_ZERO, ref.UNDEF_ZP_NAN, ref.UNDEF_Y_NAN}
    assert shapes == {0, 1, 2}


def test_opconform_passes_every_drawn_case(examples, tmp_path):
    backend = OpconformBackend()
    for i, ex in enumerate(examples[:N_WRITTEN]):
        if ex.case is None:
            continue
        write_case(ex.case, tmp_path / str(i))
        loaded = read_case(tmp_path / str(i) / "node" / ex.case.name)
        r = run_case_dataset(backend, loaded, 0, "strict", {})
        assert r.verdict == "pass", r.message


def test_draws_kill_every_fault(examples):
    killed = hunt_kills(fam.FAMILY.name, examples)
    want = {f.name for f in F.FAULTS} - set(UNREACHABLE)
    assert want - killed == set()


def test_rebuild_gives_each_example_again(examples):
    drawn = examples[:N_WRITTEN] + [e for e in examples if e.probe is not None][:N_WRITTEN]
    assert all(int(ex.args["opset"]) == fam.OPSET for ex in drawn)
    assert_rebuilds(fam.rebuild, drawn)
