"""The onnxruntime-node / onnxruntime-web backends (runners/backends/onnxruntime_js.py, js_process.py, js/driver.mjs):
tensors in and out bit-exactly through one long-lived Node process, the JS Tensor API's missing types unsupported
in its own words, the refusal table on verbatim messages of the committed suite, versions and settings recorded,
options refused in one line, a dead Node process ending its worker, and `opconform js-install`. The tests that run
Node skip (saying what to run) where Node or the npm packages are absent."""

from __future__ import annotations

import gc
import os
import signal
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from generator import dtypes
from generator.case import node_model
from onnx import helper
from generator.serialize import read_case
from runners import cli
from runners.backends import js_packages, onnxruntime_js
from runners.backends.base import BackendNotInstalled, BackendOptionError, Unsupported
from runners.backends.js_process import NodeDied, NodeProcess
from runners.backends.registry import get_backend
from runners.execute import run_case_dataset

CASES = Path(__file__).resolve().parents[1] / "cases"
NAMES = ["onnxruntime-node", "onnxruntime-web"]


def _backend(name: str, options: dict | None = None):
    try:
        return get_backend(name, options)
    except BackendNotInstalled as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module", params=NAMES)
def backend(request):
    return _backend(request.param)


def _identity(t, shape):
    return node_model("Identity", [("x", t, shape)], [("y", t, shape)], {}, 21)


def _values(t, shape):
    n = int(np.prod(shape))
    if t.kind == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if t.kind == "string":
        return np.array(["", "a", "héllo", "\u00a0x"] * n, dtype=object)[:n].reshape(shape)
    bits = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15 >> (64 - t.bits))
    return t.from_bits((bits & np.uint64((1 << t.bits) - 1)).astype(t.bits_dtype)).reshape(shape)


# ---- tensors in and out --------------------------------------------------------------------------------
SUPPORTED = ["float16", "float", "double", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
             "uint64", "string"]


@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_identity_is_bit_exact(backend, shape):
    """Identity returns its input: every bit (NaN payloads, -0, int64 extremes) of every type the JS Tensor API has
    goes in and comes back; 0-d stays 0-d. One model, one Identity per type."""
    types = [dtypes.get(n) for n in SUPPORTED]
    ins = [(f"x_{t.name}", t, shape) for t in types]
    outs = [(f"y_{t.name}", t, shape) for t in types]
    graph = helper.make_graph([helper.make_node("Identity", [x], [y]) for (x, _, _), (y, _, _) in zip(ins, outs)],
                              "identities", [helper.make_tensor_value_info(n, t.onnx, s) for n, t, s in ins],
                              [helper.make_tensor_value_info(n, t.onnx, s) for n, t, s in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    xs = [_values(t, shape) for t in types]
    ys = backend.run(backend.prepare(model, None), xs)
    for t, x, y in zip(types, xs, ys):
        assert y.shape == shape and y.dtype == (object if t.kind == "string" else t.np_dtype), t.name
        assert (y == x).all() if t.kind == "string" else (t.to_bits(y) == t.to_bits(x)).all(), t.name


def test_every_float16_bit_pattern(backend):
    t = dtypes.get("float16")
    x = t.from_bits(np.arange(1 << 16, dtype=np.uint16))
    y = backend.run(backend.prepare(_identity(t, x.shape), None), [x])[0]
    assert (t.to_bits(y) == t.to_bits(x)).all()


def test_int4_in(backend):
    """int4 / uint4 inputs travel packed, two to a byte; onnxruntime-node's binding has no int4 in its table of
    input types and says so (unsupported), onnxruntime-web reads them."""
    i4, i8 = dtypes.get("int4"), dtypes.get("int8")
    x = i4.from_bits(np.arange(16, dtype=np.uint8)[::-1] % 16)  # every value, 16 elements
    try:
        prepared = backend.prepare(node_model("Cast", [("x", i4, (16,))], [("y", i8, (16,))], {"to": i8.onnx}, 21),
                                   None)
    except Unsupported as exc:  # 1.19's Tensor API has no int4, 1.20 no int4 Cast kernel
        pytest.skip(str(exc))
    if backend.name == "onnxruntime-node":
        with pytest.raises(Unsupported, match=r"onnxruntime-node: Tensor\.type is not supported: int4"):
            backend.run(prepared, [x])
    else:
        y = backend.run(prepared, [x])[0]
        assert (y == x.astype(np.int8)).all()


@pytest.mark.parametrize("name", ["bfloat16", "float8e4m3fn", "float4e2m1", "int2", "float8e8m0"])
def test_types_the_js_tensor_api_lacks_are_unsupported(backend, name):
    """Said after onnxruntime created the session (or refused the type itself): an invalid model is refused first."""
    t, f32 = dtypes.get(name), dtypes.get("float")
    with pytest.raises(Unsupported) as info:
        backend.prepare(node_model("Cast", [("x", f32, (2,))], [("y", t, (2,))], {"to": t.onnx}, 25), None)
    said = str(info.value)
    assert f"the JS Tensor API has no {name} element type" in said and f"Unsupported tensor type: {name}." in said


def test_real_cases(backend):
    case = read_case(CASES / "node" / "test_cast_float32_to_float16_edge")
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == "pass", r.message
    r = run_case_dataset(backend, read_case(CASES / "node" / "test_qlinearconv_config_000_random"), 0, "strict", {})
    assert r.verdict == "unsupported" and "Could not find an implementation for QLinearConv(10)" in r.message
    # a model onnxruntime must refuse is refused, though the JS Tensor API could not feed its float8 input either
    r = run_case_dataset(backend, read_case(CASES / "negative" / "test_qlinearmatmul_negative_float8_opset10"), 0,
                         "strict", {})
    assert r.verdict == "pass" and "refused at prepare as required" in r.message, r.message


def test_sessions_are_released_with_the_next_request(backend):
    t = dtypes.get("float")
    prepared = backend.prepare(_identity(t, (1,)), None)
    node = backend._node
    before = node.request({"op": "release"})[0]["sessions"]
    del prepared
    gc.collect()
    assert node.request({"op": "release"})[0]["sessions"] == before - 1


def test_wrong_input_count_is_an_error(backend):
    t = dtypes.get("float")
    prepared = backend.prepare(_identity(t, (2,)), None)
    with pytest.raises(ValueError, match="1 inputs, 2 given"):
        backend.run(prepared, [np.zeros(2, np.float32)] * 2)


# ---- Node dying -------------------------------------------------------------------------------------------
def test_a_dead_node_ends_the_worker_with_its_signal(backend, monkeypatch, capfd):
    """The worker (here: this test, its os._exit caught) ends as Node did, so the item is a crash."""
    node = NodeProcess(backend.flavor, backend.where)
    node.request({"op": "release"})
    os.kill(node.proc.pid, signal.SIGSEGV)
    with pytest.raises(NodeDied) as info:
        node.request({"op": "release"}, doing="run")
    assert info.value.code == 128 + signal.SIGSEGV and "was killed by SIGSEGV (11) during run" in str(info.value)

    class Exited(BaseException):
        pass

    def _exit(code):
        raise Exited(code)

    monkeypatch.setattr(onnxruntime_js.os, "_exit", _exit)
    b = type(backend)()
    b._node = node
    with pytest.raises(Exited) as ended:
        b._request({"op": "release"}, [], "run")
    assert ended.value.args == (128 + signal.SIGSEGV,)
    assert "was killed by SIGSEGV (11) during run; ending this process too" in capfd.readouterr().err


class KillsItsNode(onnxruntime_js.OnnxRuntimeNodeBackend):
    """onnxruntime-node whose Node process is killed (SIGSEGV) during the run of $OPCONFORM_TEST_JS_KILL's case, or
    stopped (SIGSTOP: a hang) during $OPCONFORM_TEST_JS_STOP's; each Node's pid appended to $OPCONFORM_TEST_JS_PIDS."""

    def prepare(self, model, case):
        prepared = super().prepare(model, case)
        prepared.case = case.name if case is not None else ""
        with open(os.environ["OPCONFORM_TEST_JS_PIDS"], "a") as f:
            f.write(f"{self._node.proc.pid}\n")
        return prepared

    def run(self, prepared, inputs):
        for key, sig in (("KILL", signal.SIGSEGV), ("STOP", signal.SIGSTOP)):
            if prepared.case == os.environ.get(f"OPCONFORM_TEST_JS_{key}"):
                os.kill(self._node.proc.pid, sig)
        return super().run(prepared, inputs)


def test_a_dead_or_hung_node_costs_one_item_in_the_worker(tmp_path, monkeypatch):
    """Through the real worker: Node killed during a run is that item's crash, and the next item runs in a fresh
    worker and Node; Node stopped is that item's timeout, and the supervisor kills Node with the worker."""
    from runners.results import CRASH, PASS, TIMEOUT, Result
    from runners.worker import IsolatedRunner

    _backend("onnxruntime-node")
    here = str(Path(__file__).resolve().parent)
    monkeypatch.syspath_prepend(here)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    pids = tmp_path / "pids"
    monkeypatch.setenv("OPCONFORM_TEST_JS_PIDS", str(pids))
    names = ["test_cast_float32_to_float16_edge", "test_cast_float32_to_int8_edge", "test_cast_float32_to_uint8_edge"]
    monkeypatch.setenv("OPCONFORM_TEST_JS_KILL", names[1])
    monkeypatch.setenv("OPCONFORM_TEST_JS_STOP", names[2])
    runner = IsolatedRunner(f"{Path(__file__).stem}:KillsItsNode", timeout=2)
    try:
        got = [runner.run(CASES / "node" / n, 0, "strict", lambda i, n=n: Result(
            case=n, dataset=i, kind="node", verdict="error", message="", backend="b", backend_version="0",
            tier="strict"))[1] for n in names]
    finally:
        runner.close()
    assert [r.verdict for r in got] == [PASS, CRASH, TIMEOUT], [r.message for r in got]
    assert "was killed by SIGSEGV (11) during run" in got[1].message
    assert runner.starts == 2 and len(pids.read_text().split()) == 3  # the crash's Node, then a new one
    for pid in map(int, pids.read_text().split()):  # every Node ended with its worker
        assert not Path(f"/proc/{pid}").exists() or "State:\tZ" in Path(f"/proc/{pid}/status").read_text()


# ---- versions, settings, options ----------------------------------------------------------------------------
def test_versions_and_settings_are_recorded(backend):
    package = backend.name
    assert backend.version() == js_packages.installed_version(package)
    assert backend.build().startswith(f"{package} {backend.version()} (onnxruntime-common ")
    assert "Node v" in backend.build()
    s = backend.settings()
    assert s["graph_optimization_level"] == "disabled"
    if package == "onnxruntime-node":
        assert s == {"execution_providers": ["cpu"], "graph_optimization_level": "disabled",
                     "intra_op_num_threads": 1, "allow_spinning": False}
    else:
        assert s["execution_providers"] == ["wasm"] and s["wasm_num_threads"] == 1 and s["node"].startswith("v")


@pytest.mark.parametrize("name, options, says", [
    ("onnxruntime-node", {"graph_optimization_level": "max"}, "expected one of disable, basic, extended, layout, all"),
    ("onnxruntime-node", {"intra_op_num_threads": "-1"}, "expected a whole number from 0 to 256"),
    ("onnxruntime-node", {"execution_providers": "nosuch"}, "onnxruntime-node refuses these options: "),
    ("onnxruntime-web", {"num_threads": "0"}, "expected a whole number from 1 to 64"),
    ("onnxruntime-web", {"intra_op_num_threads": "1"}, "has no option intra_op_num_threads"),
])
def test_bad_options_are_refused_in_one_line(name, options, says):
    _backend(name)
    with pytest.raises(BackendOptionError) as info:
        get_backend(name, options)
    assert says in str(info.value) and "\n" not in str(info.value) and f"backend {name!r}" in str(info.value)


def test_options_are_in_force_and_recorded():
    b = _backend("onnxruntime-node", {"graph_optimization_level": "all", "intra_op_num_threads": "2"})
    assert b._session_options()["graphOptimizationLevel"] == "all" and b._session_options()["intraOpNumThreads"] == 2
    assert b.settings()["graph_optimization_level"] == "all" and b.settings()["intra_op_num_threads"] == 2
    assert b.run(b.prepare(_identity(dtypes.get("float"), (1,)), None), [np.ones(1, np.float32)])[0] == 1


# ---- installed or not -------------------------------------------------------------------------------------
def test_missing_packages_say_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv(js_packages.ENV, str(tmp_path))
    for name in NAMES:
        with pytest.raises(BackendNotInstalled) as info:
            get_backend(name)
        text = str(info.value)
        assert "\n" not in text and f"npm package {name} is not installed in {tmp_path}" in text
        assert "run `opconform js-install`" in text or "node is not on PATH" in text
    old = tmp_path / "node_modules" / "onnxruntime-web"
    old.mkdir(parents=True)
    (old / "package.json").write_text('{"version": "1.17.3"}')
    assert "onnxruntime-web 1.17.3" in js_packages.missing("onnxruntime-web") and "older than" in \
        js_packages.missing("onnxruntime-web")


def test_a_package_that_does_not_load_is_an_error_per_item(tmp_path, monkeypatch):
    _backend("onnxruntime-web")  # Node and the real package are there: only the copy below is broken
    package = tmp_path / "node_modules" / "onnxruntime-web"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"version": "1.30.0", "main": "index.js"}')
    (package / "index.js").write_text('throw new Error("broken on purpose")')
    monkeypatch.setenv(js_packages.ENV, str(tmp_path))
    b = get_backend("onnxruntime-web")
    for _ in range(2):  # and the next item tries again
        with pytest.raises(RuntimeError, match=f"onnxruntime-web from {tmp_path} does not load in Node: broken on "
                                               "purpose$"):
            b.prepare(_identity(dtypes.get("float"), (1,)), None)


def test_js_install_runs_npm_without_scripts(tmp_path, monkeypatch, capsys):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"  # records its arguments, installs a package.json of each package asked for
    npm.write_text("#!/bin/sh\necho \"$@\" > \"$OPCONFORM_TEST_ARGS\"\nprefix=$6; shift 6\nfor p; do\n"
                   "  d=\"$prefix/node_modules/${p%@*}\"; mkdir -p \"$d\"\n"
                   "  echo '{\"version\": \"9.9.9\"}' > \"$d/package.json\"\ndone\n")
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("OPCONFORM_TEST_ARGS", str(tmp_path / "args"))
    monkeypatch.setenv(js_packages.ENV, str(tmp_path / "js"))
    assert cli.main(["js-install", "--version", "1.30.0"]) == 0
    assert (tmp_path / "args").read_text().split() == [
        "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(tmp_path / "js"),
        "onnxruntime-node@1.30.0", "onnxruntime-web@1.30.0"]
    assert "installed onnxruntime-node 9.9.9, onnxruntime-web 9.9.9 into" in capsys.readouterr().out
    (tmp_path / "file").write_text("")
    assert cli.main(["js-install", str(tmp_path / "file")]) == 2
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert cli.main(["js-install", str(tmp_path / "js2")]) == 1
    err = capsys.readouterr().err
    assert "is not a directory" in err and "npm is not on PATH" in err and len(err.strip().splitlines()) == 2


# ---- unsupported or error ---------------------------------------------------------------------------------
# (message, unsupported?): what onnxruntime-node / onnxruntime-web 1.30.0 said on the committed suite, verbatim.
SAYINGS = [
    ("Could not find an implementation for QLinearConv(10) node with name ''", True),
    ("Can't create a session. ERROR_CODE: 9, ERROR_MESSAGE: Could not find an implementation for Identity(21) node "
     "with name ''", True),
    ("/onnxruntime_src/onnxruntime/core/graph/model.cc:202 onnxruntime::Model::Model(onnx::ModelProto&&, const "
     "onnxruntime::PathString&, const onnxruntime::IOnnxRuntimeOpSchemaRegistryList*, const "
     "onnxruntime::logging::Logger&, const onnxruntime::ModelOptions&) Unsupported model IR version: 14, max "
     "supported IR version: 13", True),
    ("Tensor.type is not supported: uint4", True),  # onnxruntime-node's binding, an int4 / uint4 input
    ("unsupported type: int4", True),  # onnxruntime-web, an int4 output
    ("Unsupported tensor type: bfloat16.", True),  # the JS Tensor API (onnxruntime-common)
    ("Unsupported data type: 16", True),  # onnxruntime-node's binding, a bfloat16 graph input
    ("unsupported data type: 16", True),  # onnxruntime-web's
    ("Only 2b and 4b quantization is supported for unpacked compute for now", True),
    ("Can't create a session. ERROR_CODE: 1, ERROR_MESSAGE: /mnt/azure_nvme_temp/_work/1/s/onnxruntime/contrib_ops/"
     "cpu/quantization/matmul_nbits.cc:135 onnxruntime::contrib::MatMulNBits<float>::MatMulNBits(const OpKernelInfo "
     "&) [T1 = float] block_size_ == 16 || block_size_ == 32 || block_size_ == 64 || block_size_ == 128 || "
     "block_size_ == 256 was false. Only block sizes 16, 32, 64, 128, and 256 are supported for MatMulNBits op, "
     "got: 512", False),  # a kernel's check of its attributes: the spec allows the value
    ("Non-zero status code returned while running QLinearConv node. Name:'' Status Message: Dilation not supported "
     "for AutoPadType::SAME_UPPER", False),
    ("failed to call OrtRun(). ERROR_CODE: 6, ERROR_MESSAGE: stod: out of range", False),
    ("Unsupported tensor type: N4Napi12InstanceWrapI20InferenceSessionWrapEE.", False),  # node: an int4 output's
    # type name read past the end of its binding's table
    ("This is an invalid model. Type Error: Type 'tensor(int2)' of input parameter (x) of operator (Identity) in "
     "node () is invalid.", False),
    # the C++ runtime's other sentences of the Python adapter's table, as the node binding passes a status on (not
    # seen through JS on the committed suite: the JS Tensor API refuses those types first)
    ("Failed to find kernel for Cast(25) (node:'' ep:'CPUExecutionProvider').", True),
    ("This is an invalid model. In Node, (\"\", Frob, \"\", -1) : , Error No Op registered for Frob with "
     "domain_version of 21", True),
    ("Fatal error: com.example:Frob(-1) is not a registered function/op", True),
    ("Exception during loading: MLDataType for: tensor(float6e2m3) is not currently registered or supported", True),
    ("Failed to load model with error: Invalid tensor data type 27.", True),
    ("ONNX Runtime only *guarantees* support for models stamped with official released onnx opset versions. Opset "
     "99 is under development ... Current official support for domain ai.onnx is till opset 28.", True),
    ("Can't create a session. ERROR_CODE: 9, ERROR_MESSAGE: not yet", True),  # web: NOT_IMPLEMENTED, any words
    ("Exception during initialization: /onnxruntime_src/onnxruntime/contrib_ops/cpu/quantization/matmul_nbits.cc:120 "
     "Only 2b, 4b and 8b quantization is supported for MatMulNBits op, additional bits support is planned.", True),
    ("Exception during initialization: a kernel's check: this mode is not currently registered or supported", False),
]


@pytest.mark.parametrize("message, unsupported", SAYINGS, ids=[m[:60] for m, _ in SAYINGS])
def test_unsupported_or_error(message, unsupported):
    assert onnxruntime_js.unsupported(Exception(message)) is unsupported


def test_every_table_entry_is_exercised():
    import re

    for pattern in onnxruntime_js.UNSUPPORTED.text + onnxruntime_js.KERNEL_UNSUPPORTED.text[:1]:
        assert any(re.search(pattern, m, re.IGNORECASE) for m, u in SAYINGS if u), pattern


def test_the_reason_is_the_runtimes_sentence():
    said = onnxruntime_js._reason(SAYINGS[2][0])
    assert said == "Unsupported model IR version: 14, max supported IR version: 13"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_node_runs_without_telemetry_and_leaves_no_file(backend):
    """onnxruntime-node's Linux build writes /tmp/mat-debug-<pid>.log from each process and tries to upload telemetry
    unless ORT_DISABLE_TELEMETRY is set: the Node process runs with it, and a session leaves no such file."""
    from pathlib import Path

    t = dtypes.get("float")
    backend.run(backend.prepare(_identity(t, (2,)), None), [np.zeros(2, np.float32)])
    node = backend._process().proc
    env = Path(f"/proc/{node.pid}/environ")
    if env.exists():
        assert b"ORT_DISABLE_TELEMETRY=1" in env.read_bytes().split(b"\0")
    assert not Path(f"/tmp/mat-debug-{node.pid}.log").exists()
