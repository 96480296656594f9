"""The layout family's hunt strategy (generator/families/layout/hunt_strategy.py, `hunt`; the interface is
generator/hunting.py), over fixed sets of seeded draws: a few from the whole catalogue (as opconform hunt draws),
and N_PER_PATTERN from each pattern alone (hypothesis keeps an example's first choice, the pattern, through most of the
examples it derives from it, so 100 draws of the whole catalogue reach only about half of the patterns;
a long hunt reaches them all):
  1. every example is written and read back as a valid graph case with its TFLite twin; its expected outputs
     are the reference kernels' on the pattern rebuilt from case.json alone; rebuild(args) gives it again;
  2. our backends pass every drawn case: opconform on the ONNX graph, opconform-tflite on the twin;
  3. the draws kill every fault model of the family (generator/reference/layout_faults.py): the sizes, windows
     and attribute values are drawn where the faulty converters part from the reference;
  4. a failure shrinks to a small case.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, find, settings

from generator.families import layout as fam
from generator.families.layout.hunt_strategy import hunt_order
from generator.hunting import Example
from generator.reference import layout as L
from generator.reference import layout_faults as LF
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend, OpconformTfliteBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

N_WHOLE = 12  # draws of the whole catalogue
N_PER_PATTERN = 3  # draws of each pattern alone (the first is the simplest: every size 1)
# Faults no draw of this strategy can kill, each with the reason (none: every one is reachable).
UNREACHABLE: dict[str, str] = {}



@pytest.fixture(scope="module")
def examples(hypothesis_home) -> list[Example]:
    whole = draw_examples(fam.hunt(fam.OPSET, hunt_order()), N_WHOLE, zlib.crc32(b"layout"))
    alone = [e for name in sorted(fam.CATALOGUE)
             for e in draw_examples(fam.hunt(fam.OPSET, [name]), N_PER_PATTERN, zlib.crc32(name.encode()))]
    return whole + alone


@pytest.fixture(scope="module")
def written(examples, tmp_path_factory):
    root = tmp_path_factory.mktemp("hunted")
    out = []
    for i, ex in enumerate(examples):
        write_case(ex.case, root / str(i))
        out.append(read_case(root / str(i) / "graph" / ex.case.name))
    return out


def test_no_strategy_below_opset_18_and_patterns_are_checked():
    assert fam.hunt(fam.OPSET - 1) is None
    with pytest.raises(ValueError, match="no layout pattern"):
        fam.hunt(fam.OPSET, ["test_layout_nothing"])
    order = hunt_order()
    assert sorted(order) == sorted(fam.CATALOGUE)
    assert len(fam.CATALOGUE[order[0]](np.random.default_rng(0)).graph.ops) == 1


def test_examples_are_valid_graph_cases_with_their_twin(examples, written):
    drawn = {ex.case.meta["params"]["pattern"] for ex in examples}
    assert drawn == set(fam.CATALOGUE)
    for ex, loaded in zip(examples, written):
        case = ex.case
        assert ex.probe is None and case.kind == "graph" and len(case.inputs) == 1
        assert case.name.startswith("test_layout_") and case.meta["opset"] == fam.OPSET
        assert LF.group_key(case.meta) == LF.GROUP
        params = loaded.meta["params"]
        assert params["pattern"] == ex.args["pattern"] and params["sizes"] == ex.args["sizes"]
        assert loaded.meta["seed"] == ex.args["seed"] and params["data"] == ex.args["data"]
        twin = loaded.twin
        assert twin is not None and twin.format == "tflite" and twin.model == case.twin.model
        for got, want in zip(loaded.inputs[0] + loaded.outputs[0], case.inputs[0] + case.outputs[0]):
            assert got.dtype == np.float32 and got.tobytes() == want.tobytes()
        for x, tx, perm in zip(loaded.inputs[0], twin.inputs[0], twin.input_perms):
            np.testing.assert_array_equal(tx, x.transpose(perm))
        for y, ty, perm in zip(loaded.outputs[0], twin.outputs[0], twin.output_perms):
            np.testing.assert_array_equal(ty, y.transpose(perm))
        # the expected outputs are the kernels' on the pattern case.json rebuilds, whatever the case is named
        source = fam.source_pattern(dict(loaded.meta, name="test_layout_renamed_by_the_hunter")).graph
        for y, ty in zip(L.run(source, twin.inputs[0]).outputs, twin.outputs[0], strict=True):
            assert y.tobytes() == ty.tobytes()


def test_rebuild_gives_the_same_case(examples):
    assert_rebuilds(fam.rebuild, examples[::5])


@pytest.mark.parametrize("backend", [OpconformBackend, OpconformTfliteBackend])
def test_our_backends_pass_every_drawn_case(written, backend):
    b = backend()
    for loaded in written:
        r = run_case_dataset(b, loaded, 0, "strict", {})
        assert r.verdict == "pass", (loaded.meta["params"], r.message)


def test_the_draws_kill_every_fault(examples):
    killed = hunt_kills(fam.FAMILY.name, examples)
    catalogue = {f.name for f in LF.FAULTS}
    assert set(UNREACHABLE) <= catalogue
    assert catalogue - set(UNREACHABLE) - killed == set()


def test_a_finding_shrinks_to_a_small_case(hypothesis_home):
    """A converter that puts SAME's odd pixel first, as a backend opconform hunt runs: hypothesis finds a case
    it fails and shrinks it to a few elements."""
    fault = LF.BY_NAME["layout.same_padding_lower"]

    def fails(ex: Example) -> bool:
        c = ex.case
        meta = dict(c.meta, name=c.name)
        return LF.killed(fault, meta, c.outputs[0], LF.run(fault, c.model, c.inputs[0], meta))

    ex = find(fam.hunt(fam.OPSET, hunt_order()), fails, random=random.Random(0),
              settings=settings(max_examples=300, database=None, deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow]))
    assert fails(ex)
    assert sum(x.size for x in ex.case.inputs[0]) <= 8 and ex.args["seed"] == 0, ex.args
