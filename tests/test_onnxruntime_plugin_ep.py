"""onnxruntime plugin execution providers (issue 20, item 5): --backend-option ep_library.<name>=PATH loads an EP
shipped as a library, ep_devices=EpName[:cpu|gpu|npu],... runs on the devices it offers, and placement (item 1)
holds for it. Option checks run always (ep_devices works with the CPU provider's own device); the tests of a real
plugin library run where OPCONFORM_PLUGIN_EP names one (scripts/build_plugin_ep.sh builds ORT's example EP,
which compiles only float Mul: any other node falls back to the CPU provider)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from runners.backends import registry
from runners.backends.base import Unsupported
from conftest import copied_node_cases

ort = pytest.importorskip("onnxruntime")
pytest_plugins = ["pytester"]
if not hasattr(ort, "register_execution_provider_library") or not hasattr(ort, "get_ep_devices"):
    pytest.skip(f"onnxruntime {ort.__version__} has no plugin EP API", allow_module_level=True)

CPU = "CPUExecutionProvider"
CASE = "test_cast_float32_to_float16_edge"  # a committed case: one Cast node
PLUGIN = os.environ.get("OPCONFORM_PLUGIN_EP")
needs_plugin = pytest.mark.skipif(not PLUGIN or not Path(PLUGIN).is_file(),
                                  reason="no plugin EP library: set OPCONFORM_PLUGIN_EP to one "
                                         "(scripts/build_plugin_ep.sh builds onnxruntime's example EP)")


def _refused(options: dict) -> str:
    with pytest.raises(registry.UnknownBackend) as info:
        registry.get_backend("onnxruntime", options)
    text = str(info.value)
    assert "\n" not in text and text.startswith("backend 'onnxruntime': --backend-option ")
    return text


def test_a_missing_library_is_one_line(tmp_path):
    assert _refused({"ep_library.mine": str(tmp_path / "nope.so")}).endswith(f"no such file {tmp_path / 'nope.so'}")


def test_a_library_that_does_not_load_is_one_line(tmp_path):
    lib = tmp_path / "not_a_library.so"
    lib.write_bytes(b"not an ELF file")
    text = _refused({"ep_library.mine": str(lib)})
    assert f"ep_library.mine={lib}: onnxruntime cannot load it: " in text and "Failed to load library" in text


@pytest.mark.parametrize("value, says", [
    ("NoSuchExecutionProvider", "no device of NoSuchExecutionProvider (onnxruntime.get_ep_devices(): "),
    (f"{CPU}:npu", f"no device of {CPU}:npu"),
    (f"{CPU}:tpu", "expected EpName[:cpu|gpu|npu],..."),
    (f"{CPU},", "expected EpName[:cpu|gpu|npu],..."),
    (f"{CPU},{CPU}:cpu", "an execution provider named twice"),
])
def test_bad_ep_devices_are_one_line(value, says):
    assert says in _refused({"ep_devices": value})


def test_providers_and_ep_devices_together_are_refused():
    assert "give providers or ep_devices, not both" in _refused({"ep_devices": CPU, "providers": CPU})


def _model(op: str) -> onnx.ModelProto:
    """float32[3] Mul (what a plugin EP claims: onnxruntime's example EP, onnxruntime-ggml's), Sign (neither
    claims it) or Cast to float32."""
    a, b, y = (helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [3]) for n in ("a", "b", "y"))
    extra = {"to": onnx.TensorProto.FLOAT} if op == "Cast" else {}
    node = helper.make_node(op, ["a", "b"] if op == "Mul" else ["a"], ["y"], name="n0", **extra)
    graph = helper.make_graph([node], "g", [a, b] if op == "Mul" else [a], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def test_ep_devices_selects_a_device_and_records_placement():
    b = registry.get_backend("onnxruntime", {"ep_devices": f"{CPU}:cpu"})
    assert b.settings()["ep_devices"] == f"{CPU}:cpu" and b.settings()["providers"] == [CPU]
    prepared = b.prepare(_model("Cast"), None)
    assert prepared.placement == {"requested": CPU, "checked": True,
                                  "nodes": [{"node": "n0", "op": "Cast", "provider": CPU}]}
    assert CPU in prepared.session.get_providers()


def _suite_run(pytester, monkeypatch, *options: str) -> tuple[dict, object]:
    suite = copied_node_cases(pytester, monkeypatch, [CASE])
    out = pytester.path / "r.json"
    args = [a for o in options for a in ("--backend-option", o)]
    result = pytester.runpytest_subprocess(str(suite), "--backend", "onnxruntime", *args, "--report", str(out))
    return (json.loads(out.read_text()) if out.exists() else {}), result


def test_ep_devices_through_the_runner(pytester, monkeypatch):
    """Each worker process configures the backend: the devices are selected there too."""
    doc, _ = _suite_run(pytester, monkeypatch, f"ep_devices={CPU}")
    assert doc["records"] and {r["verdict"] for r in doc["records"]} == {"pass"}
    assert all(r["placement"]["nodes"][0]["provider"] == CPU for r in doc["records"])
    assert doc["backend"]["settings"]["ep_devices"] == CPU


def test_a_bad_library_stops_the_runner_in_one_line(pytester, monkeypatch):
    _, result = _suite_run(pytester, monkeypatch, "ep_library.mine=/nonexistent/lib.so")
    assert result.ret != 0
    lines = [line for line in result.outlines + result.errlines if "ep_library.mine" in line]
    assert lines and "no such file /nonexistent/lib.so" in lines[0]
    assert "Traceback" not in "\n".join(result.outlines + result.errlines)


# ---- a real plugin EP library ---------------------------------------------------------------------
def _plugin_ep_names() -> list[str]:
    """The EP names the library at PLUGIN offers when registered as "plugin" (the example EP takes its name from
    the registration), asked of a fresh process: registration is per process."""
    code = ("import onnxruntime as ort, sys\n"
            "before = {d.ep_name for d in ort.get_ep_devices()}\n"
            "ort.register_execution_provider_library('plugin', sys.argv[1])\n"
            "print('\\n'.join(sorted({d.ep_name for d in ort.get_ep_devices()} - before)))\n")
    out = subprocess.run([sys.executable, "-c", code, PLUGIN], capture_output=True, text=True, check=True).stdout
    return out.split()


@needs_plugin
def test_the_plugin_runs_the_node_it_claims():
    ep = _plugin_ep_names()[0]
    b = registry.get_backend("onnxruntime", {"ep_library.plugin": PLUGIN, "ep_devices": ep})
    assert b.settings()["ep_libraries"] == {"plugin": PLUGIN} and b.settings()["providers"] == [ep]
    prepared = b.prepare(_model("Mul"), None)
    assert prepared.placement == {"requested": ep, "checked": True,
                                  "nodes": [{"node": "n0", "op": "Mul", "provider": ep}]}
    a, c = np.array([1.5, -2.0, 3.0], np.float32), np.array([2.0, 0.25, -1.0], np.float32)
    assert b.run(prepared, [a, c])[0].tolist() == [3.0, -0.5, -3.0]  # exact products


@needs_plugin
def test_a_node_the_plugin_does_not_claim_is_unsupported_naming_both():
    ep = _plugin_ep_names()[0]
    b = registry.get_backend("onnxruntime", {"ep_library.plugin": PLUGIN, "ep_devices": ep})
    with pytest.raises(Unsupported, match=rf"^onnxruntime: Sign ran on {CPU}, not {ep}$") as info:
        b.prepare(_model("Sign"), None)
    assert info.value.placement["requested"] == ep


@needs_plugin
def test_the_plugin_through_the_runner(pytester, monkeypatch):
    """The library is registered in each worker process, and the verdict follows where the Cast ran: judged where
    the plugin ran it (onnxruntime-ggml claims a float32 -> float16 Cast), unsupported naming both where it fell
    back to the CPU provider (the example EP claims only Mul)."""
    ep = _plugin_ep_names()[0]
    doc, _ = _suite_run(pytester, monkeypatch, f"ep_library.plugin={PLUGIN}", f"ep_devices={ep}")
    assert doc["records"] and doc["backend"]["settings"]["ep_libraries"] == {"plugin": PLUGIN}
    for r in doc["records"]:
        assert r["placement"]["requested"] == ep and r["placement"]["nodes"]
        if {n["provider"] for n in r["placement"]["nodes"]} == {ep}:
            assert r["verdict"] in ("pass", "fail"), r["message"]
        else:
            assert r["verdict"] == "unsupported" and f"Cast ran on {CPU}, not {ep}" in r["message"]


@needs_plugin
def test_a_node_no_provider_implements_is_unsupported():
    """bfloat16 -> float4e2m1 Cast: no kernel on the CPU provider of onnxruntime 1.32, none on the plugin. With a
    plugin EP in the session onnxruntime says so in other words ("Provider type for Cast node ... is not set",
    inside "Exception during initialization"): still unsupported, as on the CPU provider alone."""
    ep = _plugin_ep_names()[0]
    b = registry.get_backend("onnxruntime", {"ep_library.plugin": PLUGIN, "ep_devices": ep})
    x = helper.make_tensor_value_info("x", onnx.TensorProto.BFLOAT16, [3])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT4E2M1, [3])
    node = helper.make_node("Cast", ["x"], ["y"], to=onnx.TensorProto.FLOAT4E2M1)
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 23)],
                              ir_version=11)
    try:
        registry.get_backend("onnxruntime", {}).prepare(model, None)
    except Unsupported:
        pass
    else:
        pytest.skip("this onnxruntime's CPU provider implements the Cast")
    with pytest.raises(Unsupported):
        b.prepare(model, None)
