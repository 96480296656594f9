"""onnxruntime placement (issue 20, item 1): each item records which execution provider ran its node(s); a node
that ran on another provider than the first one the run asked for is `unsupported` naming both, unless
--backend-option allow_fallback=1. The pip wheel's AzureExecutionProvider has no kernel for any ONNX op, so
providers=AzureExecutionProvider,CPUExecutionProvider is a real fallback to the CPU provider."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper

from generator import dtypes
from generator.reference.cast import cast
from runners.backends import registry
from runners.backends.base import Unsupported
from conftest import copied_node_cases

ort = pytest.importorskip("onnxruntime")
pytest_plugins = ["pytester"]
if not hasattr(ort.InferenceSession, "get_provider_graph_assignment_info"):
    pytest.skip(f"onnxruntime {ort.__version__} does not say which provider ran a node", allow_module_level=True)

CPU, AZURE = "CPUExecutionProvider", "AzureExecutionProvider"
FALLBACK = f"{AZURE},{CPU}"
needs_azure = pytest.mark.skipif(AZURE not in ort.get_available_providers(),
                                 reason="this onnxruntime has no AzureExecutionProvider (the wheel's kernel-less EP)")
F32, F16 = dtypes.get("float32"), dtypes.get("float16")
CASE = "test_cast_float32_to_float16_edge"  # a committed case: one Cast node


def _cast_model() -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT16, [3])
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], name="cast0", to=onnx.TensorProto.FLOAT16)],
                              "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


X = np.array([0.5, -2.0, 70000.0], np.float32)


def _bits(a: np.ndarray) -> list[int]:
    return a.view(np.uint16).tolist()


def test_a_node_run_on_cpu_records_its_provider():
    b = registry.get_backend("onnxruntime", {})
    prepared = b.prepare(_cast_model(), None)
    assert prepared.placement == {"requested": CPU, "checked": True,
                                  "nodes": [{"node": "cast0", "op": "Cast", "provider": CPU}]}
    assert _bits(b.run(prepared, [X])[0]) == _bits(cast(X, F32, F16)[0])


@needs_azure
def test_a_fallback_is_unsupported_naming_both_providers():
    b = registry.get_backend("onnxruntime", {"providers": FALLBACK})
    with pytest.raises(Unsupported) as info:
        b.prepare(_cast_model(), None)
    assert str(info.value) == f"onnxruntime: Cast ran on {CPU}, not {AZURE}"
    assert info.value.placement == {"requested": AZURE, "checked": True,
                                    "nodes": [{"node": "cast0", "op": "Cast", "provider": CPU}]}


@needs_azure
def test_allow_fallback_judges_the_item_and_keeps_where_it_ran():
    b = registry.get_backend("onnxruntime", {"providers": FALLBACK, "allow_fallback": "1"})
    assert b.settings()["allow_fallback"] is True
    prepared = b.prepare(_cast_model(), None)
    assert prepared.placement["requested"] == AZURE and prepared.placement["nodes"][0]["provider"] == CPU
    assert _bits(b.run(prepared, [X])[0]) == _bits(cast(X, F32, F16)[0])


@pytest.mark.parametrize("value", ["yes", "", "2"])
def test_allow_fallback_takes_0_or_1(value):
    with pytest.raises(registry.UnknownBackend, match=r"^backend 'onnxruntime': --backend-option "
                                                      rf"allow_fallback={value}: expected one of 0, 1$"):
        registry.get_backend("onnxruntime", {"allow_fallback": value})


def _run_suite(pytester, monkeypatch, *options: str) -> dict:
    suite = copied_node_cases(pytester, monkeypatch, [CASE])
    out = pytester.path / "r.json"
    args = [a for o in options for a in ("--backend-option", o)]
    pytester.runpytest_subprocess(str(suite), "--backend", "onnxruntime", *args, "--report", str(out))
    return json.loads(out.read_text())


def test_the_runner_records_placement_of_a_pass(pytester, monkeypatch):
    doc = _run_suite(pytester, monkeypatch)
    assert {r["verdict"] for r in doc["records"]} == {"pass"}
    for r in doc["records"]:
        assert r["placement"] == {"requested": CPU, "checked": True,
                                  "nodes": [{"node": r["placement"]["nodes"][0]["node"], "op": "Cast",
                                             "provider": CPU}]}


@needs_azure
def test_the_runner_reports_a_fallback_unsupported_and_judges_it_when_allowed(pytester, monkeypatch):
    doc = _run_suite(pytester, monkeypatch, f"providers={FALLBACK}")
    assert doc["records"] and {r["verdict"] for r in doc["records"]} == {"unsupported"}
    for r in doc["records"]:
        assert f"Cast ran on {CPU}, not {AZURE}" in r["message"]
        assert r["placement"]["requested"] == AZURE and r["placement"]["nodes"][0]["provider"] == CPU
    (pytester.path / "s").rename(pytester.path / "old")
    doc = _run_suite(pytester, monkeypatch, f"providers={FALLBACK}", "allow_fallback=1")
    assert {r["verdict"] for r in doc["records"]} == {"pass"}
    assert all(r["placement"]["nodes"][0]["provider"] == CPU for r in doc["records"])
    assert doc["backend"]["settings"]["allow_fallback"] is True


def test_recording_turned_off_by_a_config_option_leaves_placement_unchecked_not_an_error():
    b = registry.get_backend("onnxruntime", {"config.session.record_ep_graph_assignment_info": "0"})
    prepared = b.prepare(_cast_model(), None)
    assert prepared.placement["checked"] is False and prepared.placement["providers"] == [CPU]
    assert "record_ep_graph_assignment_info" in prepared.placement["why"]
    assert _bits(b.run(prepared, [X])[0]) == _bits(cast(X, F32, F16)[0])


def test_a_negative_case_whose_node_ran_elsewhere_is_unsupported_not_refused():
    """The placement check's Unsupported is the adapter's, not the backend refusing the model: a negative case
    whose model the backend accepted (and ran elsewhere) is unsupported, never a pass by refusal. A backend that
    says it does not implement the model (its own Unsupported, no placement) is unsupported too: it never checked
    the rule the case breaks (onnx-reference "refused" every MatMulNBits negative for want of the op); any other
    refusal passes."""
    from pathlib import Path

    from generator.serialize import read_case
    from runners.backends.base import Unsupported
    from runners.execute import run_case_dataset

    case = read_case(Path(__file__).parents[1] / "cases" / "negative" / "test_qlinearconv_negative_bias_length")

    class Elsewhere:
        name = "elsewhere"
        placed = True

        def version(self):
            return "1"

        def settings(self):
            return {}

        def prepare(self, model, case):
            refusal = Unsupported("ran on CPUExecutionProvider, not XExecutionProvider")
            if self.placed:
                refusal.placement = {"requested": "XExecutionProvider",
                                     "nodes": [{"node": "n", "op": "Cast", "provider": "CPUExecutionProvider"}]}
            raise refusal

        def run(self, prepared, inputs):
            raise AssertionError("not run")

    backend = Elsewhere()
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == "unsupported" and "not XExecutionProvider" in r.message
    assert r.placement["requested"] == "XExecutionProvider"
    backend.placed = False
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == "unsupported" and "cannot show the refusal required" in r.message
    backend.prepare = lambda model, case: (_ for _ in ()).throw(ValueError("bias must have length M"))
    assert run_case_dataset(backend, case, 0, "strict", {}).verdict == "pass"


def test_a_negative_case_the_backend_does_not_implement_at_run_is_unsupported():
    """A negative case refused at run with the backend's own Unsupported (an adapter that cannot take the data,
    torch's reading of the shapes) shows no refusal either: unsupported; any other exception at run passes."""
    from pathlib import Path

    from generator.serialize import read_case
    from runners.backends.base import Unsupported
    from runners.execute import run_case_dataset

    case = read_case(Path(__file__).parents[1] / "cases" / "negative"
                     / "test_dequantizelinear_negative_per_axis_scale_opset10")
    assert case.meta["phase"] == "run" and case.n_datasets >= 1

    class AtRun:
        name = "at-run"
        error = Unsupported("the adapter cannot take these shapes")

        def version(self):
            return "1"

        def settings(self):
            return {}

        def prepare(self, model, case):
            return model

        def run(self, prepared, inputs):
            raise self.error

    backend = AtRun()
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == "unsupported" and "cannot take these shapes" in r.message
    backend.error = ValueError("scale must be a scalar")
    assert run_case_dataset(backend, case, 0, "strict", {}).verdict == "pass"
