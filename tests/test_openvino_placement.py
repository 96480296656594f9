"""OpenVINO placement (issue 20, item 1): each item records the device and the precision each execution node ran
in (the compiled model's runtime info), and flags a node run in a lower precision than its declared types (the CPU
plugin's f64 -> f32 and i64 -> i32, an f16 inference precision hint). The verdict stays judged: the outputs are
what this device gives for the model (runners/backends/openvino_placement.py says why)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import COMMITTED_NODES, copied_node_cases
from generator import dtypes
from generator.case import node_model

pytest.importorskip("openvino")
from runners.backends import openvino as ov_backend  # noqa: E402
from runners.backends import openvino_ops  # noqa: E402
from runners.backends.base import Unsupported  # noqa: E402
from runners.backends.openvino_placement import note, requested_device  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402

pytest_plugins = ["pytester"]

F32, F64, I64 = (dtypes.get(n) for n in ("float", "double", "int64"))


TWIN = COMMITTED_NODES.parent / "graph" / "test_layout_add_broadcast_11c" / "model.tflite"


def _cast(src, to):
    return node_model("Cast", [("x", src, (2,))], [("y", to, (2,))], {"to": to.onnx}, 21)


def _matmul():
    return node_model("MatMul", [("a", F32, (4, 4)), ("b", F32, (4, 4))], [("y", F32, (4, 4))], {}, 21)


def test_a_float32_cast_records_device_and_precision():
    place = get_backend("openvino").prepare(_cast(F32, F32), None).placement
    assert place["requested"] == "CPU" and place["devices"] == ["CPU"] and "note" not in place
    assert place["nodes"] and all(n["device"] == "CPU" and n["node"] == ["y"] and n["op"] == "Cast" for n in place["nodes"])
    assert {n["precision"] for n in place["nodes"]} == {"f32"} and not any(n.get("lowered") for n in place["nodes"])


def test_a_float32_to_float64_cast_computed_in_f32_is_not_lowered():
    """Exact: f32 is the narrowest type the node declares."""
    place = get_backend("openvino").prepare(_cast(F32, F64), None).placement
    assert not any(n.get("lowered") for n in place["nodes"])
    assert {n["precision"] for n in place["nodes"]} == {"f32"}


@pytest.mark.parametrize("t, declared, ran", [(F64, "f64", "f32"), (I64, "i64", "i32")])
def test_the_cpu_plugin_runs_64_bit_types_in_32_bits_and_that_is_flagged(t, declared, ran):
    place = get_backend("openvino").prepare(_cast(t, t), None).placement
    low = [n for n in place["nodes"] if n.get("lowered")]
    assert low and all(n["declared"] == declared and n["ran_as"] == ran and n["node"] == ["y"] for n in low)
    assert place["note"] == f"Cast y ran in {ran}, declared {declared}"


def test_an_f16_precision_hint_lowers_a_float32_matmul_and_that_is_flagged():
    default = get_backend("openvino").prepare(_matmul(), None).placement
    assert not any(n.get("lowered") for n in default["nodes"])
    place = get_backend("openvino", {"inference_precision": "f16"}).prepare(_matmul(), None).placement
    low = [n for n in place["nodes"] if n.get("lowered")]
    import openvino

    capable = set(openvino.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")) & {"FP16", "BF16"}
    if not capable:  # an AVX2-only CPU (AMD EPYC here): the plugin keeps f32 whatever the hint, and says so
        assert not low and place.get("note") is None
        return
    # the CPU plugin takes the hint as "a 16-bit float": f16, or bf16 on a CPU with AVX-512 BF16 (seen on an AMD
    # EPYC with avx512_bf16, OpenVINO 2026.4.1): either is lowered from f32, and the note names the one it ran in
    ran = {n["ran_as"] for n in low}
    assert low and {n["declared"] for n in low} == {"f32"} and ran in ({"f16"}, {"bf16"})
    assert place["note"] == f"MatMul y ran in {ran.pop()}, declared f32"


def test_a_lowered_node_is_still_judged():
    """A node the device runs lower gives what a user of this device gets: its outputs are compared (a wrong
    one is a fail, never hidden as unsupported)."""
    b = get_backend("openvino")
    x = np.array([1 + 2.0 ** -40, 3.0], np.float64)
    y = b.run(b.prepare(_cast(F64, F64), None), [x])[0]
    assert y.dtype == np.float64 and y[1] == 3.0


@pytest.mark.parametrize("device, requested", [("CPU", "CPU"), ("AUTO", None), ("AUTO:GPU,CPU", "GPU"),
                                               ("HETERO:CPU", "CPU"), ("MULTI:GPU(2),CPU", "GPU")])
def test_requested_device(device, requested):
    assert requested_device(device) == requested


def test_note_names_each_lowered_node_once():
    nodes = [{"node": ["y"], "op": "Cast", "lowered": True, "ran_as": "f32", "declared": "f64"}] * 2
    assert note({"nodes": nodes}) == "Cast y ran in f32, declared f64"
    assert note({"nodes": [{"node": ["y"], "op": "Cast"}]}) is None


def test_the_native_convert_promote_types_where_opset14_is_missing_is_unsupported(monkeypatch):
    """OpenVINO 2023.3 LTS has no opset14 (runners/backends/openvino_ops.py) and 2024.0's has no
    convert_promote_types: their native ConvertPromoteTypes items are unsupported, saying so (2024.0's were errors
    before: the scoreboard's run of it showed 11185)."""
    from test_openvino_backend import _cpt_model

    key = next(iter(ov_backend.NATIVE))
    monkeypatch.setitem(ov_backend.NATIVE, key, None)
    with pytest.raises(Unsupported, match=r"has no native ConvertPromoteTypes \(its opset14 has none\)"):
        get_backend("openvino").prepare(_cpt_model("int8", "float", [(3,), (2,)], "float"), None)


def test_opsets_are_found_where_this_release_has_them():
    import openvino

    assert openvino_ops.opset(13) is not None and openvino_ops.OPSET14 is openvino_ops.opset(14)
    assert (openvino_ops.OPSET14 is None) == openvino.get_version().startswith("2023.")  # 2023.3 stops at opset13
    assert openvino_ops.opset(99) is None and openvino_ops.BASIC is not None


def _run_suite(pytester, monkeypatch, names, *options: str) -> dict:
    suite = copied_node_cases(pytester, monkeypatch, names)
    out = pytester.path / "r.json"
    args = [a for o in options for a in ("--backend-option", o)]
    pytester.runpytest_subprocess(str(suite), "--backend", "openvino", *args, "--report", str(out))
    return json.loads(out.read_text())


def test_the_runner_records_placement_and_lowered_precision(pytester, monkeypatch):
    names = ["test_cast_float32_to_float32_edge", "test_cast_int64_to_float32_edge"]
    doc = _run_suite(pytester, monkeypatch, names)
    assert doc["records"] and {r["verdict"] for r in doc["records"]} == {"pass"}
    for r in doc["records"]:
        p = r["placement"]
        assert p["requested"] == "CPU" and p["nodes"] and all(n["device"] == "CPU" for n in p["nodes"])
        assert not any(n.get("lowered") for n in p["nodes"])
    # a lowering every CPU makes (the CPU plugin has no 64-bit integer kernels): an f16 hint lowers this Cast on
    # some CPUs only (not on an AMD EPYC with AVX-512 BF16, where the hint means bf16 and Convert stays in f32)
    (pytester.path / "s").rename(pytester.path / "old")
    doc = _run_suite(pytester, monkeypatch, ["test_cast_float32_to_int64_edge"])
    assert doc["records"]
    for r in doc["records"]:
        assert r["placement"]["note"] == "Cast output ran in i32, declared i64"
        assert any(n.get("lowered") and n["ran_as"] == "i32" for n in r["placement"]["nodes"])
    assert "fail" in {r["verdict"] for r in doc["records"]}  # judged: int32 loses what the edge inputs hold


@pytest.mark.parametrize("place, says", [
    ({"requested": "GPU", "devices": ["CPU"]}, "ran on CPU, not GPU"),
    ({"requested": "GPU", "devices": ["GPU.0", "CPU"]}, "ran on GPU.0, CPU, not GPU"),
    ({"requested": "GPU", "devices": ["GPU.0"]}, None),
    ({"requested": "CPU", "devices": ["CPU"]}, None),
    ({"requested": None, "devices": ["CPU"]}, None),
    ({"requested": "CPU", "devices": []}, None),
])
def test_elsewhere(place, says):
    from runners.backends.openvino_placement import elsewhere

    assert elsewhere(place) == says


@pytest.mark.parametrize("name", ["openvino", "openvino-tflite"])
def test_a_model_run_on_another_device_is_unsupported_unless_allowed(name, monkeypatch):
    """This machine has one device: the placement OpenVINO reports is replaced by one where AUTO:GPU,CPU ran on
    CPU, to check what the backend makes of it."""
    from runners.backends import openvino_tflite
    from runners.backends import openvino_placement

    module = ov_backend if name == "openvino" else openvino_tflite
    real = openvino_placement.placement
    monkeypatch.setattr(module, "_placement" if name == "openvino" else "placement",
                        lambda compiled, model, device: {**real(compiled, model, device), "requested": "GPU"})
    model = _cast(F32, F32) if name == "openvino" else TWIN.read_bytes()
    with pytest.raises(Unsupported, match=r"ran on CPU, not GPU \(--backend-option allow_fallback=1 judges it\)") \
            as info:
        get_backend(name).prepare(model, None)
    assert info.value.placement["devices"] == ["CPU"]
    b = get_backend(name, {"allow_fallback": "1"})
    assert b.prepare(model, None).placement["requested"] == "GPU" and b.settings()["allow_fallback"] is True
    assert "allow_fallback" not in get_backend(name).settings()
