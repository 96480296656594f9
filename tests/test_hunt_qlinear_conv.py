"""The QLinearConv hunt strategy (generator/families/qlinear_conv.py, `hunt`; the interface is generator/hunting.py),
over one fixed set of N seeded draws (the same on every run for one hypothesis version):
  1. every example is written and read back as a valid case (node, negative, or probe); a node case's expected
     outputs are the reference's on its inputs, every one defined; a probe holds only data the reference calls
     undefined; rebuild(args) gives the same example again;
  2. the opconform backend passes every drawn node and negative case;
  3. the draws kill every fault model of generator/reference/qlinear_conv_faults.py but those listed in
     UNREACHABLE (each with the reason no defined input can kill it), and reach the boundaries the strategy
     is biased to (odd SAME padding, zero points at both ends with padding, saturation at both ends, exact ties
     with multipliers that are no float, per-channel scales, groups, 1-D to 3-D).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from generator.families import qlinear_conv as fam
from generator.hunting import Example
from generator.reference import qlinear_conv as ref
from generator.reference import qlinear_conv_faults as F
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

N = 300  # draws for the kill matrix and the boundaries; every STRIDE-th one is written, read and run
STRIDE = 7
# Faults no draw of this strategy can kill, each with the reason.
UNREACHABLE = {
    "qlinear_conv.accumulator_wrap32": "differs only where conv + B leaves int32, which the spec leaves undefined "
                                       "(the strategy puts such data in the probe); inside int32, sums modulo "
                                       "2**32 are exact (qlinear_conv_faults._WRAP_PROOF)",
}


@pytest.fixture(scope="module")
def examples(hypothesis_home) -> list[Example]:
    return draw_examples(fam.hunt(fam.OPSET), N, zlib.crc32(b"qlinear_conv"))


@pytest.fixture(scope="module")
def written(examples, tmp_path_factory) -> list[tuple[Example, list]]:
    """Every STRIDE-th example, and the first with a probe and the first negative one, its cases written and
    read back (in the order case, probe)."""
    root = tmp_path_factory.mktemp("hunted")
    out = []
    first_probe = next((ex for ex in examples if ex.probe is not None), None)
    first_negative = next((ex for ex in examples if ex.case is not None and ex.case.kind == "negative"), None)
    chosen = list(examples[::STRIDE])
    chosen += [ex for ex in (first_probe, first_negative) if ex is not None and all(ex is not c for c in chosen)]
    for i, ex in enumerate(chosen):
        loaded = []
        for case in (ex.case, ex.probe):
            if case is not None:
                write_case(case, root / str(i))
                loaded.append(read_case(root / str(i) / case.kind / case.name))
        out.append((ex, loaded))
    return out


def conv_of(meta: dict) -> fam.Conv:
    return fam.witness_conv("hunt", meta["params"])


def test_no_strategy_below_opset_10():
    assert fam.hunt(fam.OPSET - 1) is None


def test_examples_are_valid_cases(written):
    kinds = set()
    for ex, loaded in written:
        assert ex.case is not None or ex.probe is not None
        assert ex.case is None or ex.case.kind in ("node", "negative")
        assert ex.probe is None or (ex.probe.kind == "probe" and ex.case is None)  # one data set: one or other
        for lc in loaded:
            kinds.add(lc.kind)
            meta = lc.meta
            assert lc.name.startswith("test_qlinearconv_") and lc.n_datasets == 1
            assert meta["family"] == fam.FAMILY.name and meta["opset"] == fam.OPSET and meta["op"] == fam.FAMILY.op
            assert F.group_key(meta).count(" ") == 3  # the fault module reads the class from params
            if lc.kind == "negative":  # the reference refuses it (the opconform backend test runs it)
                assert meta["invalid"] and lc.outputs is None
                continue
            outcome = fam.expected(conv_of(meta), lc.inputs[0])
            (y,) = outcome.outputs
            if lc.kind == "node":
                assert meta["compare"] == fam.COMPARE and outcome.defined
                assert y.dtype == lc.outputs[0][0].dtype and y.tobytes() == lc.outputs[0][0].tobytes()
            else:  # the probe: only data the spec leaves undefined
                assert lc.outputs is None and not outcome.defined and outcome.reasons == meta["undefined"]
    assert kinds == {"node", "negative", "probe"}


def test_rebuild_gives_the_same_example(examples):
    assert_rebuilds(fam.rebuild, examples[::3])


def test_opconform_passes_every_drawn_case(written):
    backend = OpconformBackend()
    for ex, loaded in written:
        for lc in loaded:
            if lc.kind != "probe":
                r = run_case_dataset(backend, lc, 0, "strict", {})
                assert r.verdict == "pass", (lc.kind, lc.meta["params"], r.message)


def test_the_draws_kill_every_reachable_fault(examples):
    killed = hunt_kills(fam.FAMILY.name, examples)
    catalogue = {f.name for f in F.FAULTS}
    assert set(UNREACHABLE) <= catalogue
    assert catalogue - set(UNREACHABLE) - killed == set()
    # unreachable by proof: equivalent to the reference in every class
    for f in F.FAULTS:
        if f.name in UNREACHABLE:
            assert all(f.equivalent(dict(_class_params(*g), opset=fam.OPSET)) for g in F.all_groups())


def _class_params(padding: str, dilated: bool, per_channel: bool, bias: bool) -> dict:
    p = {"bias": "random" if bias else "absent", "per_channel": "scale" if per_channel else "no"}
    if padding != "explicit":
        p["auto_pad"] = padding.upper()
    if dilated:
        p["dilations"] = [2]
    return p


def test_the_draws_reach_the_boundaries(examples):
    seen: set[str] = set()
    for ex in examples:
        case = ex.case if ex.case is not None and ex.case.kind == "node" else None
        if case is None:
            continue
        p, ins, y = case.meta["params"], case.inputs[0], case.outputs[0][0]
        conv = conv_of(case.meta)
        begin, end, _, _, dilations = fam.geometry(conv)
        seen.add(f"{len(conv.kernel)}-D")
        if "auto_pad" in p and p["auto_pad"].startswith("SAME"):
            seen.add(p["auto_pad"] + (" odd" if any((b + e) % 2 for b, e in zip(begin, end)) else " even"))
        if max(begin + end) > 0 and int(ins[2]) != 0:
            seen.add("x_zero_point != 0 with padding")
        for name, v in (("x", ins[2]), ("y", ins[7])):
            t = np.iinfo(v.dtype)
            if int(v) in (t.min, t.max):
                seen.add(f"{name}_zero_point {'min' if int(v) == t.min else 'max'}")
        t = np.iinfo(y.dtype)
        if (y == t.min).any() and (y == t.max).any():
            seen.add("saturated at both ends")
        if p["per_channel"] != "no" and len(set(ins[4].tolist())) > 1:
            seen.add("per-channel w_scale")
        if conv.group > 1:
            seen.add("depthwise" if conv.group == conv.x_shape[1] else "group")
        if max(p.get("strides", [1])) > 1:
            seen.add("strides 2")
        if max(p.get("dilations", [1])) > 1:
            seen.add("dilations 2")
        if any(k > 1 and (k - 1) * d + 1 == i + b + e
               for k, d, b, e, i in zip(conv.kernel, dilations, begin, end, conv.x_shape[2:])):
            seen.add("kernel as large as the padded input")
        if p["scales"] == "tie":
            _, den = ref.multiplier(float(ins[1]), float(ins[4].reshape(-1)[0]), float(ins[6]))
            if den & (den - 1):  # the multiplier is no dyadic rational, so no float
                seen.add("exact tie, multiplier no float")
        if p["bias"] == "saturate":
            seen.add("saturating bias")
    want = {"1-D", "2-D", "3-D", "SAME_UPPER odd", "SAME_UPPER even", "SAME_LOWER odd", "SAME_LOWER even",
            "x_zero_point != 0 with padding", "x_zero_point min", "x_zero_point max", "y_zero_point min",
            "y_zero_point max", "saturated at both ends", "per-channel w_scale", "depthwise", "group", "strides 2",
            "dilations 2", "kernel as large as the padded input", "exact tie, multiplier no float",
            "saturating bias"}
    assert want - seen == set()
