"""--backend-option: each backend's table of keys, unknown keys refused with the known ones, bad values refused in
one line, each option in force in the session / compiled model, and the settings (recorded in results, reports
and baselines) different for different options and unchanged without options."""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, faults
from generator.case import node_model
from generator.families import layout as family
from generator.reference.cast import cast
from generator.serialize import read_case, write_case
from runners.backends import registry
from runners.backends.base import Backend, BackendOptionError, UnknownBackend, option_pattern

F32 = dtypes.get("float")
MUTANT = "fault:" + sorted(faults.by_name("cast"))[0]


def _cast_model(to: str = "float16", opset: int = 21):
    t = dtypes.get(to)
    return node_model("Cast", [("x", F32, (3,))], [("y", t, (3,))], {"to": t.onnx}, opset)


def _refused(spec: str, options: dict) -> str:
    with pytest.raises(BackendOptionError) as info:
        registry.get_backend(spec, options)
    text = str(info.value)
    assert "\n" not in text
    return text


def _installed() -> list[str]:
    return [r["name"] for r in registry.list_backends() if r["installed"]]


# ---- every backend ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", _installed() + [MUTANT, "onnxruntime.backend"])
def test_unknown_key_is_refused_with_the_known_ones(spec):
    known = registry.get_backend(spec).OPTIONS
    text = _refused(spec, {"no_such_option": "1"})
    assert "no_such_option" in text and isinstance(BackendOptionError("x"), UnknownBackend)
    if known:
        assert "known: " + ", ".join(known) in text
    else:
        assert "takes no --backend-option" in text


def test_every_option_has_one_line_of_help():
    for row in registry.list_backends():
        for key, help_text in (row.get("options") or {}).items():
            assert help_text and "\n" not in help_text and " " not in key, (row["name"], key)


def test_without_options_the_settings_are_what_baselines_hold():
    """Default settings are recorded in existing results and baselines: they must not change."""
    assert registry.get_backend("onnxruntime", {}).settings() == {
        "providers": ["CPUExecutionProvider"], "graph_optimization_level": "ORT_DISABLE_ALL",
        "intra_op_num_threads": 1, "allow_spinning": False}
    assert registry.get_backend("litert").settings() == {
        "op_resolver": "AUTO (builtin kernels + default XNNPACK delegate)", "num_threads": 1}


def test_option_patterns():
    table = {"providers": "", "provider_option.<Provider>.<key>": "", "config.<key>": ""}
    assert option_pattern(table, "providers") == "providers"
    assert option_pattern(table, "provider_option.X.y") == "provider_option.<Provider>.<key>"
    assert option_pattern(table, "config.session.x") == "config.<key>"
    assert option_pattern(table, "config.") is None and option_pattern(table, "provider") is None
    assert option_pattern(table, "config.<key>") == "config.<key>"  # a pattern is a key like any other


def test_a_backend_declaring_options_without_configure_says_so():
    class Half(Backend):
        name = "half"
        OPTIONS = {"x": "an option nobody applies"}

    from runners.backends.base import configure_backend

    with pytest.raises(NotImplementedError):
        configure_backend(Half(), {"x": "1"})


# ---- onnxruntime ------------------------------------------------------------------------------
ort = pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("options, says", [
    ({"graph_optimization_level": "fast"}, "expected one of disable, basic, extended"),
    ({"intra_op_num_threads": "two"}, "expected a whole number from 0 to 256"),
    ({"intra_op_num_threads": "-1"}, "expected a whole number from 0 to 256"),
    ({"intra_op_num_threads": "100000"}, "expected a whole number from 0 to 256"),
    ({"providers": "NoSuchExecutionProvider"}, "NoSuchExecutionProvider not available; this onnxruntime has "),
    ({"providers": " , "}, "no provider named"),
    ({"providers": "CPUExecutionProvider,CPUExecutionProvider"}, "a provider named twice"),
    ({"provider_option.NoSuchExecutionProvider.device_id": "0"}, "a Provider of providers (CPUExecutionProvider)"),
    ({"provider_option.CPUExecutionProvider": "0"}, "expected provider_option.<Provider>.<key>"),
])
def test_onnxruntime_bad_values_are_refused(options, says):
    text = _refused("onnxruntime", options)
    assert says in text and text.startswith("backend 'onnxruntime': --backend-option ")
    if "not available" in says:
        assert "CPUExecutionProvider" in text.split("has ")[-1]


def test_onnxruntime_a_provider_it_does_not_start_is_refused(monkeypatch):
    """onnxruntime drops a provider it cannot start with a warning and runs on CPU: refused at once."""
    real = ort.InferenceSession

    class DropsTheFirst(real):
        def get_providers(self):
            return super().get_providers()[1:]

    monkeypatch.setattr(ort, "InferenceSession", DropsTheFirst)
    text = _refused("onnxruntime", {"providers": "CPUExecutionProvider"})
    assert "onnxruntime did not start CPUExecutionProvider" in text


@pytest.mark.parametrize("level, expected", [("disable", "ORT_DISABLE_ALL"), ("basic", "ORT_ENABLE_BASIC"),
                                             ("extended", "ORT_ENABLE_EXTENDED"), ("all", "ORT_ENABLE_ALL")])
def test_onnxruntime_graph_optimization_level_is_in_the_session(level, expected):
    b = registry.get_backend("onnxruntime", {"graph_optimization_level": level})
    assert b.settings()["graph_optimization_level"] == expected
    options = b.prepare(_cast_model(), None).session.get_session_options()
    assert options.graph_optimization_level == getattr(ort.GraphOptimizationLevel, expected)


def test_onnxruntime_threads_and_config_entries_are_in_the_session():
    b = registry.get_backend("onnxruntime", {"intra_op_num_threads": "2", "config.session.set_denormal_as_zero": "1",
                                             "config.session.intra_op.allow_spinning": "1"})
    options = b.prepare(_cast_model(), None).session.get_session_options()
    assert options.intra_op_num_threads == 2
    assert options.get_session_config_entry("session.set_denormal_as_zero") == "1"
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    s = b.settings()
    assert s["intra_op_num_threads"] == 2 and s["allow_spinning"] is True
    assert s["config"] == {"session.set_denormal_as_zero": "1", "session.intra_op.allow_spinning": "1"}


def test_onnxruntime_provider_list_and_options_are_honoured():
    available = ort.get_available_providers()
    other = next((p for p in available if p != "CPUExecutionProvider"), None)
    if other is None:
        pytest.skip("this onnxruntime has no provider but CPU")
    # allow_fallback: the Cast may run on CPU (Azure has no kernels), which is otherwise unsupported
    b = registry.get_backend("onnxruntime", {"providers": f"{other},CPUExecutionProvider",
                                             f"provider_option.{other}.some_key": "7", "allow_fallback": "1"})
    assert b.settings()["providers"] == [other, "CPUExecutionProvider"]
    assert b.settings()["provider_options"] == {other: {"some_key": "7"}}
    session = b.prepare(_cast_model(), None).session
    assert session.get_providers() == [other, "CPUExecutionProvider"]
    x = np.array([0.5, -2.0, 1.0 / 3], np.float32)
    want = cast(x, F32, dtypes.get("float16"))[0]
    assert (b.run(b.prepare(_cast_model(), None), [x])[0].view(np.uint16) == want.view(np.uint16)).all()


def test_onnxruntime_settings_differ_per_option():
    seen = [registry.get_backend("onnxruntime").settings()]
    for options in ({"graph_optimization_level": "all"}, {"intra_op_num_threads": "0"},
                    {"config.session.set_denormal_as_zero": "1"}):
        settings = registry.get_backend("onnxruntime", options).settings()
        assert settings not in seen, options
        seen.append(settings)


# ---- litert -----------------------------------------------------------------------------------
def test_litert_options_reach_the_interpreter(monkeypatch, tmp_path):
    from runners.backends import litert

    seen = {}
    real = litert.Interpreter

    def recording(**kwargs):
        seen.update(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(litert, "Interpreter", recording)
    b = registry.get_backend("litert", {"op_resolver": "BUILTIN_REF", "num_threads": "2"})
    assert b.settings() == {"op_resolver": "BUILTIN_REF (reference kernels)", "num_threads": 2}
    name = "test_layout_conv_concat_channel_axis"
    write_case(family.build_case(family.CATALOGUE[name], name, 0, 1), tmp_path)
    case = read_case(tmp_path / "graph" / name)
    b.prepare(case.twin.model, case)
    assert seen["num_threads"] == 2 and seen["experimental_op_resolver_type"] == litert.OpResolverType.BUILTIN_REF


@pytest.mark.parametrize("options, says", [({"op_resolver": "FAST"}, "expected one of AUTO, BUILTIN"),
                                           ({"num_threads": "0"}, "expected a whole number from 1 to 256")])
def test_litert_bad_values_are_refused(options, says):
    assert says in _refused("litert", options)


# ---- module:attr ------------------------------------------------------------------------------
def test_module_attr_device_is_checked_and_recorded():
    assert registry.get_backend("onnxruntime.backend", {"device": "CPU"}).settings() == {"device": "CPU"}
    assert "supports_device() returned False" in _refused("onnxruntime.backend", {"device": "NO_SUCH_DEVICE"})
