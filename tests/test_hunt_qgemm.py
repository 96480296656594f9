"""The QGemm hunt strategy (generator/families/qgemm/hunt.py; the interface is generator/hunting.py) over one fixed
set of N seeded draws: every example is a valid case whose expected outputs are the reference's; rebuild(args) gives
the same example; the opconform backend passes the node and negative ones; the draws kill every fault model and reach
the boundaries the strategy is biased to."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from generator.families import qgemm as fam
from generator.families.qgemm.config import from_params, full_inputs
from generator.hunting import Example
from generator.reference import qgemm as ref
from generator.reference import qgemm_faults as F
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

N = 300
STRIDE = 15


@pytest.fixture(scope="module")
def examples(hypothesis_home) -> list[Example]:
    return draw_examples(fam.hunt(fam.OPSET), N, zlib.crc32(b"qgemm"))


def test_examples_are_valid_cases_and_pass_on_opconform(examples, tmp_path):
    backend, kinds = OpconformBackend(), set()
    for i, ex in enumerate(examples[::STRIDE] + [ex for ex in examples if ex.probe is not None][:1]):
        for case in (ex.case, ex.probe):
            if case is None:
                continue
            write_case(case, tmp_path / str(i))
            lc = read_case(tmp_path / str(i) / case.kind / case.name)
            kinds.add(lc.kind)
            assert lc.name.startswith("test_qgemm_") and lc.n_datasets == 1
            if lc.kind == "probe":
                continue
            if lc.kind == "node":
                g = from_params("hunt", lc.meta["params"])
                (y,) = ref.qgemm(full_inputs(g, lc.inputs[0]), g.attrs).outputs
                assert y.tobytes() == lc.outputs[0][0].tobytes()
            r = run_case_dataset(backend, lc, 0, "strict", {})
            assert r.verdict == "pass", (lc.kind, lc.meta["params"], r.message)
    assert {"node", "probe"} <= kinds


def test_rebuild_gives_the_same_example(examples):
    assert_rebuilds(fam.rebuild, examples[::4])


def test_the_draws_kill_every_fault(examples):
    assert {f.name for f in F.FAULTS} - hunt_kills(fam.FAMILY.name, examples) == set()


def test_the_draws_reach_the_boundaries(examples):
    seen: set[str] = set()
    for ex in examples:
        case = ex.case if ex.case is not None and ex.case.kind == "node" else None
        if case is None:
            continue
        p, y = case.meta["params"], case.outputs[0][0]
        seen.add(F.group_key(case.meta))
        seen.add(f"trans {p['transA']}{p['transB']}")
        if p["K"] == 0:
            seen.add("K 0")
        if p["alpha"] < 0:
            seen.add("alpha negative")
        if y.dtype != np.float32:
            t = np.iinfo(y.dtype)
            if (y == t.min).any() or (y == t.max).any():
                seen.add("saturated")
    want = {F.key_of(*g) for g in F.all_groups()} | {f"trans {a}{b}" for a in (0, 1) for b in (0, 1)} | \
        {"K 0", "alpha negative", "saturated"}
    assert want - seen == set()
