"""The layout family's graph cases: both twins on disk, hash-checked, consistent with each other through
the recorded permutations, deterministic, passing on our own references in both layouts, and running on
LiteRT (TFLite twin) and onnxruntime (ONNX graph) with the expected outputs."""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

from generator.families import layout as family
from generator.families.layout.cases import assemble
from generator.families.layout.pattern import PROPAGATION, Pattern
from generator.family import PROBE_COMPARE, Catalogue, Family
from generator.outcome import Outcome
from generator.reference import layout as L
from generator.reference.layout_graph import new_graph
from generator.reference import layout_kernels as K
from generator.serialize import CaseError, case_files, read_case, write_case
from generator.tflite_writer import TfliteError, read_tflite, write_tflite
from runners.backends import registry
from runners.execute import run_case_dataset

NAMES = sorted(family.CATALOGUE)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    for unit in family.work("default", 0):
        for case in unit():
            write_case(case, root)
    return root


def _load(suite, name):
    return read_case(suite / "graph" / name)


def test_names_are_unique_lower_snake_case_and_cover_the_issue():
    assert all(re.fullmatch(r"test_layout_[a-z0-9_]+", n) for n in NAMES)
    for needed in ("conv_elementwise_chain", "conv_concat_channel_axis", "conv_concat_negative_axis",
                   "conv_reshape_fully_connected", "conv_flatten_fully_connected", "reshape_conv",
                   "reshape_concat_explicit_layout", "add_broadcast_c", "mul_broadcast_wc", "add_broadcast_11c",
                   "mean_hw_negative_axes_keepdims1", "mean_hw_keepdims0", "reduce_max_c_negative_axis_keepdims0",
                   "pad_asymmetric", "slice_asymmetric", "strided_slice_asymmetric", "softmax_channel_axis",
                   "softmax_last_axis_1x256x256", "transpose_in_propagated_region", "prelu_per_channel_slope",
                   "split_channel_axis", "rank3_explicit_nwc", "rank5_conv3d", "conv_concat_ambiguous_4x4x4"):
        assert f"test_layout_{needed}" in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_twins_agree_through_the_recorded_permutations(suite, name):
    case = _load(suite, name)
    twin = case.twin
    assert case.kind == "graph" and twin is not None and twin.format == "tflite"
    assert twin.model_path.name == "model.tflite" and twin.model[4:8] == b"TFL3"
    onnx.checker.check_model(case.model, full_check=True)
    assert case.n_datasets == 2 and len(twin.inputs) == 2
    for i in range(case.n_datasets):
        for x, tx, perm in zip(case.inputs[i], twin.inputs[i], twin.input_perms):
            np.testing.assert_array_equal(tx, x.transpose(perm))
        for y, ty, perm in zip(case.outputs[i], twin.outputs[i], twin.output_perms):
            np.testing.assert_array_equal(ty, y.transpose(perm))
    assert case.meta["compare"]["mode"] == "allclose" and case.meta["compare"]["reason"]


def test_a_wrong_permutation_cannot_pass_sizes_are_distinct():
    """Apart from the deliberately ambiguous cases, the activations of a conv have distinct sizes."""
    for name in NAMES:
        if "ambiguous" in name or "256" in name:  # the equal-sizes axis's variants are not in CATALOGUE
            continue
        g = family.CATALOGUE[name](np.random.default_rng(0)).graph
        for n in g.inputs + g.outputs:
            shape = [s for s in g.tensors[n].shape if s != 1]
            assert len(shape) == len(set(shape)), (name, n, g.tensors[n].shape)


def test_no_case_below_opset_18():
    assert family.work("default", 0, 17) == []
    assert len(family.work("quick", 0, 18)) == len(NAMES) + len(family.axis_variants())


def test_generation_is_deterministic():
    make = family.CATALOGUE["test_layout_mul_broadcast_wc_graph_input"]
    a = case_files(family.build_case(make, "test_layout_mul_broadcast_wc_graph_input", 0, 2))
    b = case_files(family.build_case(make, "test_layout_mul_broadcast_wc_graph_input", 0, 2))
    assert a == b
    c = case_files(family.build_case(make, "test_layout_mul_broadcast_wc_graph_input", 1, 2))
    assert c["test_data_set_0/input_0.pb"] != a["test_data_set_0/input_0.pb"]


@pytest.mark.parametrize("backend", ["opconform", "opconform-tflite"])
def test_our_references_pass_every_case_in_both_layouts(suite, backend):
    b = registry.get_backend(backend)
    cache: dict = {}
    for name in NAMES:
        case = _load(suite, name)
        for i in range(case.n_datasets):
            r = run_case_dataset(b, case, i, "strict", cache)
            assert r.verdict == "pass", r.message


def test_both_layouts_give_bit_identical_results_with_our_kernels(suite):
    b_onnx, b_tfl = registry.get_backend("opconform"), registry.get_backend("opconform-tflite")
    for name in NAMES:
        case = _load(suite, name)
        ys = b_onnx.run(b_onnx.prepare(case.model, case), case.inputs[0])
        ts = b_tfl.run(b_tfl.prepare(case.twin.model, case), case.twin.inputs[0])
        for y, t, perm in zip(ys, ts, case.twin.output_perms):
            np.testing.assert_array_equal(t, y.transpose(perm), err_msg=name)


@pytest.mark.parametrize("backend", ["litert", "onnxruntime"])
def test_our_converter_output_runs_on_litert_and_onnxruntime(suite, backend):
    b = registry.get_backend(backend)
    cache: dict = {}
    for name in NAMES:
        case = _load(suite, name)
        r = run_case_dataset(b, case, 0, "strict", cache)
        assert r.verdict == "pass", r.message


def test_an_onnx_backend_gets_the_onnx_graph_and_a_tflite_backend_the_twin(suite):
    case = _load(suite, "test_layout_reshape_conv")
    seen = {}

    class Spy:
        def __init__(self, fmt):
            self.name, self.model_format = f"spy-{fmt}", fmt

        def version(self):
            return "0"

        def prepare(self, model, case):
            seen[self.model_format] = model
            return None

        def run(self, prepared, inputs):
            return [np.zeros((1,), np.float32)]

    for fmt in ("onnx", "tflite"):
        r = run_case_dataset(Spy(fmt), case, 0, "strict", {})
        assert r.verdict == "fail"  # the structure check still judges the zeros
    assert isinstance(seen["onnx"], onnx.ModelProto) and seen["tflite"] == case.twin.model


def test_a_tflite_backend_on_a_case_without_twin_is_unsupported(tmp_path):
    from generator.case import Case, node_model
    from generator import dtypes

    f = dtypes.get("float")
    model = node_model("Relu", [("x", f, (2,))], [("y", f, (2,))], {}, 18)
    meta = {"op": "Relu", "domain": "", "opset": 18, "family": "t", "spec": {}, "compare": {"mode": "exact"},
            "flags": [], "seed": 0}
    x = np.array([1.0, -1.0], np.float32)
    write_case(Case("test_relu_plain", "node", model, [[x]], [[np.maximum(x, 0)]], meta), tmp_path)
    case = read_case(tmp_path / "node" / "test_relu_plain")
    assert case.twin is None
    r = run_case_dataset(registry.get_backend("litert"), case, 0, "strict", {})
    assert r.verdict == "unsupported" and "no tflite model" in r.message


def test_a_changed_twin_file_fails_its_hash(suite, tmp_path):
    import shutil

    src = suite / "graph" / "test_layout_pad_asymmetric"
    dst = tmp_path / "test_layout_pad_asymmetric"
    shutil.copytree(src, dst)
    data = bytearray((dst / "model.tflite").read_bytes())
    data[-1] ^= 1
    (dst / "model.tflite").write_bytes(bytes(data))
    with pytest.raises(CaseError, match="model.tflite: sha256 mismatch"):
        read_case(dst)
    shutil.rmtree(dst)
    shutil.copytree(src, dst)
    (dst / "test_data_set_1" / "tflite_output_0.pb").unlink()
    with pytest.raises(CaseError, match="tflite_output_0.pb"):
        read_case(dst)


@pytest.mark.parametrize("name", NAMES)
def test_tflite_writer_round_trip(name):
    g = family.CATALOGUE[name](np.random.default_rng(5)).graph
    back = read_tflite(write_tflite(g))
    assert back.inputs == g.inputs and back.outputs == g.outputs
    xs = [np.random.default_rng(1).uniform(-1, 2, g.tensors[n].shape).astype(np.float32) for n in g.inputs]
    for a, b in zip(L.run(g, xs).outputs, L.run(back, xs).outputs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_tflite_reader_refuses_what_is_not_tflite():
    with pytest.raises(TfliteError, match="TFL3"):
        read_tflite(b"not a model at all")
    g = family.CATALOGUE["test_layout_reshape_conv"](np.random.default_rng(5)).graph
    with pytest.raises(ValueError, match="last axis"):
        bad = new_graph("tflite")
        bad.add("x", (1, 3, 4))
        bad.inputs = ["x"]
        bad.op("softmax", ["x"], [("y", (1, 3, 4))], axis=1)
        bad.outputs = ["y"]
        write_tflite(bad)
    with pytest.raises(ValueError, match="form 'tflite'"):
        write_tflite(L.convert(g).graph)


def test_the_family_follows_the_contract(suite):
    """FAMILY is a Family named for its module; CATALOGUE a Catalogue of test_layout_<function>; the graph
    runner returns an Outcome; every case's metadata is FAMILY's, with its pattern's operator as "op"."""
    assert isinstance(family.FAMILY, Family) and family.FAMILY.name == family.__name__.rsplit(".", 1)[1]
    assert isinstance(family.CATALOGUE, Catalogue) and family.CATALOGUE.prefix == "test_layout_"
    assert all(name == f"test_layout_{fn.__name__}" for name, fn in family.CATALOGUE.items())
    p = family.CATALOGUE["test_layout_split_channel_axis"](np.random.default_rng(0))
    xs = [np.zeros(p.graph.tensors[n].shape, np.float32) for n in p.graph.inputs]
    out = L.run(p.graph, xs)
    assert isinstance(out, Outcome) and out.defined and len(out.outputs) == 2
    for name in NAMES:
        meta = _load(suite, name).meta
        assert meta["family"] == "layout" and meta["spec"]["file"] == family.FAMILY.spec_file
        assert meta["op"] == family.CATALOGUE[name](np.random.default_rng(0)).op
    assert not (suite / "probe").exists()  # seeded finite data: every suite data set is defined


def _empty_mean() -> Pattern:
    """(1, 0, 3) NWC, Mean over W (empty) keepdims: 3 elements, each the mean of no value."""
    g = new_graph("tflite")
    g.add("x", (1, 0, 3))
    g.inputs = ["x"]
    g.op("mean", ["x"], [("y", (1, 1, 3))], axes=[1], keepdims=True)
    g.outputs = ["y"]
    return Pattern("ReduceMean", PROPAGATION, g, {"x": L.last_to_first(3)}, what="empty mean")


def test_a_mean_of_no_value_is_undefined_and_goes_to_the_probe(tmp_path):
    """onnx.defs ReduceMean-18: "Reduction over an empty set of values yields undefined"; ReduceMax-18: minus
    infinity, which is defined."""
    x = np.zeros((1, 0, 3), np.float32)
    assert K.reduce_undefined(x, "mean", [1]) == K.EMPTY_MEAN
    assert K.reduce_undefined(x, "mean", [0]) is None  # no output element: nothing undefined
    assert K.reduce_undefined(x, "max", [1]) is None
    assert K.reduce(x, "max", [1], True).tolist() == [[[-np.inf] * 3]]
    p = _empty_mean()
    out = L.run(p.graph, [x])
    assert out.reasons == [K.EMPTY_MEAN] and out.outputs[0].shape == (1, 1, 3)
    (probe,) = assemble(p, "test_layout_empty_mean", 0, [[x], [x]])
    assert probe.name == "test_layout_empty_mean_probe" and probe.kind == "probe" and probe.twin is None
    assert probe.outputs is None and len(probe.inputs) == 2 and probe.inputs[0][0].shape == (1, 3, 0)
    assert probe.meta["undefined"] == [K.EMPTY_MEAN] and probe.meta["compare"] == PROBE_COMPARE
    assert probe.meta["flags"] == ["probe"] and probe.meta["op"] == "ReduceMean"
    write_case(probe, tmp_path)
    assert read_case(tmp_path / "probe" / probe.name).kind == "probe"
    with pytest.raises(ValueError, match="undefined"):
        family.build_case(lambda rng: _empty_mean(), "test_layout_empty_mean", 0, 1)
