"""The QLinearMatMul hunt strategy (generator/families/qlinear_matmul/hunt.py; the interface is generator/hunting.py)
over one fixed set of N seeded draws: every example is a valid case whose expected outputs are the reference's;
rebuild(args) gives the same example; the opconform backend passes the node and negative ones; the draws kill every
fault model but those no defined input can kill, and reach the boundaries the strategy is biased to."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from generator.families import qlinear_matmul as fam
from generator.hunting import Example
from generator.reference import qlinear_matmul as ref
from generator.reference import qlinear_matmul_faults as F
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

N = 120
STRIDE = 6
UNREACHABLE = {
    "qlinear_matmul.accumulator_wrap32": "differs only where acc leaves int32, which the text leaves undefined (the "
                                         "strategy puts such data in the probe): qlinear_matmul_faults._WRAP32_PROOF",
}


@pytest.fixture(scope="module")
def examples(hypothesis_home) -> list[Example]:
    return draw_examples(fam.hunt(fam.NEWEST), N, zlib.crc32(b"qlinear_matmul"))


def test_no_strategy_below_opset_10():
    assert fam.hunt(fam.OPSET - 1) is None


def test_examples_are_valid_cases_and_pass_on_opconform(examples, tmp_path):
    backend, kinds = OpconformBackend(), set()
    for i, ex in enumerate(examples[::STRIDE] + [ex for ex in examples if ex.probe is not None][:1]):
        for case in (ex.case, ex.probe):
            if case is None:
                continue
            write_case(case, tmp_path / str(i))
            lc = read_case(tmp_path / str(i) / case.kind / case.name)
            kinds.add(lc.kind)
            assert lc.name.startswith("test_qlinearmatmul_") and lc.n_datasets == 1
            if lc.kind == "probe":
                outcome = ref.qlinear_matmul(*lc.inputs[0])
                assert not outcome.defined and outcome.reasons == lc.meta["undefined"]
                continue
            if lc.kind == "node":
                (y,) = ref.qlinear_matmul(*lc.inputs[0]).outputs
                assert y.tobytes() == lc.outputs[0][0].tobytes()
            r = run_case_dataset(backend, lc, 0, "strict", {})
            assert r.verdict == "pass", (lc.kind, lc.meta["params"], r.message)
    assert {"node", "probe"} <= kinds


def test_rebuild_gives_the_same_example(examples):
    assert_rebuilds(fam.rebuild, examples[::4])


def test_the_draws_kill_every_reachable_fault(examples):
    killed = hunt_kills(fam.FAMILY.name, examples)
    catalogue = {f.name for f in F.FAULTS}
    assert catalogue - set(UNREACHABLE) - killed == set()
    for f in F.FAULTS:  # unreachable by proof: equivalent in every class
        if f.name in UNREACHABLE:
            assert all(f.equivalent({"a_shape": [2] * (3 if s == "batched" else 2), "b_shape": [2, 2],
                                     "a_quant": "per_row" if r else "per_tensor",
                                     "b_quant": "per_column" if c else "per_tensor"}) for s, r, c in F.all_groups())


def test_the_draws_reach_the_boundaries(examples):
    seen: set[str] = set()
    for ex in examples:
        case = ex.case if ex.case is not None and ex.case.kind == "node" else None
        if case is None:
            continue
        p, ins, y = case.meta["params"], case.inputs[0], case.outputs[0][0]
        seen.add(F.shape_class(p["a_shape"], p["b_shape"]))
        seen.add(f"opset {case.meta['opset']}")
        seen.add(p["scale_type"])
        if p["a_quant"] == "per_row":
            seen.add("per row")
        if p["b_quant"] == "per_column":
            seen.add("per column")
        t = np.iinfo(y.dtype)
        if (y == t.min).any() or (y == t.max).any():
            seen.add("saturated")
        if p["scales"] == "tie":
            _, den = ref.multiplier(float(ins[1].reshape(-1)[0]), float(ins[4].reshape(-1)[0]), float(ins[6]))
            if den & (den - 1):
                seen.add("exact tie, multiplier no float")
    want = {"1d", "2d", "batched", "broadcast", "opset 10", "opset 21", "float", "float16", "bfloat16", "per row",
            "per column", "saturated", "exact tie, multiplier no float"}
    assert want - seen == set()
