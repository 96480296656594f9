"""The IREE backend (runners/backends/iree_backend.py and its iree_*.py helpers) on tiny hand-built models:
tensors in and out bit-exactly for every element type IREE takes (its ABI is signless), f64 kept f64 and the flag
that demotes it, the table of what IREE says when it lacks something (verbatim words of iree-base-compiler 3.13.0,
documented in docs/backends_iree.md) and what stays an error, a batch's compile errors and compiler crashes each
charged to its own model, no crash handler files left in TMPDIR, the compile cache (a rerun only loads), which
models go together (the look-ahead, a model another worker holds, a stale claim), the options recorded and a bad
one refused in one line.

A compile costs a second or more: the models of each part are compiled together (Batcher.compile_together), in
few invocations, into one cache for the module."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

pytest.importorskip("iree.compiler", reason="iree-base-compiler is not installed (extra iree)")
pytest.importorskip("iree.runtime", reason="iree-base-runtime is not installed (extra iree)")
from generator import dtypes  # noqa: E402
from generator.case import node_model  # noqa: E402
from runners.backends import iree_backend  # noqa: E402
from runners.backends.base import BackendOptionError, Unsupported  # noqa: E402
from runners.backends.registry import get_backend  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "backends_iree.md"
V = helper.make_tensor_value_info


def _model(nodes, inputs, outputs, initializers=(), opset=21, value_info=(), domains=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *domains], ir_version=10)


def _relu(n: int):
    return _model([helper.make_node("Relu", ["x"], ["y"])], [V("x", TP.FLOAT, [n])], [V("y", TP.FLOAT, [n])])


def _castlike_uint(to: int):
    """CastLike float8e4m3fnuz -> an unsigned type: iree-compile 3.13 aborts ("LLVM ERROR: Unhandled type in
    getScalarTypeForType: ui16")."""
    return _model([helper.make_node("CastLike", ["x", "like"], ["y"])],
                  [V("x", TP.FLOAT8E4M3FNUZ, [2]), V("like", to, [2])], [V("y", to, [2])])


# ---- the models, compiled together once --------------------------------------------------------
TYPES = ["bool", "int4", "uint4", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "bfloat16", "float", "double", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"]
REFUSED_TYPES = {"int2": 26, "uint2": 25, "float8e8m0": 24, "float4e2m1": 23, "float6e2m3": 27, "float6e3m2": 28}
SHAPES = [(), (0,), (2, 3), ("all",)]  # "all": every bit pattern the type has (a selection for 32 and 64 bits)


def _pool(t) -> np.ndarray:
    """Every bit pattern of a type up to 16 bits (NaN payloads, infinities, -0, subnormals), one more to make the
    count odd (int4's last byte half full); the edges and NaN payloads of the wider ones."""
    if t.kind == "bool":
        return np.array([True, False, True])
    if t.bits <= 16:
        bits = np.arange((1 << t.bits) + 1) % (1 << t.bits)
        if t.is_float:
            return t.from_bits(bits.astype(t.bits_dtype))
        return (bits + t.int_min).astype(t.np_dtype)
    if t.is_float:
        e, m = t.exponent_bits, t.mantissa_bits
        top, quiet = ((1 << e) - 1) << m, 1 << (m - 1)  # (top: infinity; top | 1: a signaling NaN)
        bits = [0, 1, quiet - 1, top, top | 1, top | quiet, top | quiet | 0x55, (1 << m) - 1, 1 << m, top - 1]
        bits += [b | 1 << (t.bits - 1) for b in bits]
        return t.from_bits(np.array(bits, dtype=np.uint64).astype(t.bits_dtype))
    return np.array([t.int_min, t.int_max, 0, 1, t.int_min + 1, t.int_max - 1], dtype=t.np_dtype)


def _shape(t, shape) -> tuple:
    return (_pool(t).size,) if shape == ("all",) else shape


def _input(t, shape) -> np.ndarray:
    pool = _pool(t)
    n = int(np.prod(shape))
    return pool if shape == (pool.size,) else pool[np.arange(n) * 7 % pool.size].reshape(shape)


# a kernel over every pattern, not only the ABI: Neg flips the sign bit (IREE 3.13's bfloat16 Neg returns the
# canonical NaN 0x7fc0 for every NaN: it computes in f32), Transpose moves the bits
NEG_TYPES = ["float16", "float", "double"]
TRANSPOSE_TYPES = ["bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "int4", "uint4",
                   "uint8"]


def roundtrip(name: str):
    """One model a type (a function each costs compile time): an Identity for each of SHAPES, and a kernel over
    every pattern: Neg (the sign bit flipped) or Transpose (the bits moved)."""
    t = dtypes.get(name)
    ins, outs, nodes = [], [], []
    for k, shape in enumerate(SHAPES):
        ins.append((f"x{k}", t, _shape(t, shape)))
        outs.append((f"y{k}", t, _shape(t, shape)))
        nodes.append(helper.make_node("Identity", [f"x{k}"], [f"y{k}"]))
    n = _pool(t).size
    if name in NEG_TYPES:
        outs.append(("neg", t, (n,)))
        nodes.append(helper.make_node("Neg", [f"x{len(SHAPES) - 1}"], ["neg"]))
    if name in TRANSPOSE_TYPES:
        ins.append(("rows", t, (2, n // 2)))
        outs.append(("transposed", t, (n // 2, 2)))
        nodes.append(helper.make_node("Transpose", ["rows"], ["transposed"], perm=[1, 0]))
    return _model(nodes, [V(a, t.onnx, s) for a, t, s in ins], [V(a, t.onnx, s) for a, t, s in outs])


def _inputs(name: str) -> list[np.ndarray]:
    t = dtypes.get(name)
    xs = [_input(t, _shape(t, shape)) for shape in SHAPES]
    if name in TRANSPOSE_TYPES:
        xs.append(_pool(t)[:-1].reshape(2, -1))
    return xs


def identity(name: str, shape):
    t = dtypes.get(name)
    return node_model("Identity", [("x", t, shape)], [("y", t, shape)], {}, 21)


F64_ADD = _model([helper.make_node("Add", ["x", "c"], ["y"])], [V("x", TP.DOUBLE, [2])], [V("y", TP.DOUBLE, [2])],
                 [numpy_helper.from_array(np.array([2.0 ** -40, 1e-300]), "c")])


def _good_models() -> list:
    return [*(roundtrip(n) for n in TYPES), identity("float", (2, 3)), identity("string", (2,)), F64_ADD]


# The mixed batch: good ones, one IREE lacks, one it fails to compile, two that crash it (each its own)
MIXED = {
    "relu_a": _relu(5),
    "cast_f8_to_u16": _model([helper.make_node("Cast", ["x"], ["y"], to=TP.UINT16)], [V("x", TP.FLOAT8E4M3FN, [2])],
                             [V("y", TP.UINT16, [2])]),
    # with f64 kept (the adapter's default) QuantizeLinear's float8 saturate=0 path extends float8 to f64, which
    # the llvm-cpu backend cannot lower
    "quantize_f8_saturate0": _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], saturate=0)],
                                    [V("x", TP.FLOAT, [2]), V("s", TP.FLOAT, []), V("z", TP.FLOAT8E4M3FN, [])],
                                    [V("y", TP.FLOAT8E4M3FN, [2])], opset=19),
    "crash_u16": _castlike_uint(TP.UINT16),
    "crash_u64": _castlike_uint(TP.UINT64),
    "relu_b": _relu(6),
}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("iree-cache")


@pytest.fixture(scope="module")
def backend(cache_dir):
    b = get_backend("iree", {"cache": str(cache_dir)})
    b.batcher().compile_together(_good_models())
    return b


@pytest.fixture(scope="module")
def mixed(cache_dir, tmp_path_factory):
    """The mixed batch compiled together, with TMPDIR a folder of the test's own: (backend, TMPDIR, invocations)."""
    tmp = tmp_path_factory.mktemp("tmpdir")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TMPDIR", str(tmp))
        b = get_backend("iree", {"cache": str(cache_dir)})
        b.batcher().compile_together(MIXED.values())
    return b, tmp, list(b.batcher().invocations)


# ---- tensors in and out ---------------------------------------------------------------------------
def _same_bits(t, y: np.ndarray, x: np.ndarray) -> bool:
    if t.kind == "bool" or not t.is_float:
        return bool((y == x).all())
    return bool((t.to_bits(y) == t.to_bits(x)).all())


@pytest.mark.parametrize("name", TYPES)
def test_tensors_are_bit_exact_in_the_declared_type(backend, name):
    """uint8 comes back uint8 (the ABI says INT_8), int4 packed two to a byte, 0-d stays 0-d, every bit pattern
    (NaN payloads, bfloat16, float8) as it went in, through the ABI (Identity) and a kernel (Neg, Transpose)."""
    t = dtypes.get(name)
    xs = _inputs(name)
    ys = backend.run(backend.prepare(roundtrip(name), None), xs)
    for k, shape in enumerate(SHAPES):
        y, x = ys[k], xs[k]
        assert y.dtype == t.np_dtype and y.shape == x.shape, (shape, y.dtype, y.shape)
        assert _same_bits(t, y, x), (shape, x, y)
    rest = ys[len(SHAPES):]
    if name in NEG_TYPES:
        y, x = rest.pop(0), xs[len(SHAPES) - 1]
        assert y.dtype == t.np_dtype and (t.to_bits(y) == t.to_bits(x) ^ (1 << (t.bits - 1))).all()
    if name in TRANSPOSE_TYPES:
        y, x = rest.pop(0), xs[-1]
        assert y.dtype == t.np_dtype and y.shape == x.T.shape and _same_bits(t, y, x.T)
    assert not rest


@pytest.mark.parametrize("name", sorted(REFUSED_TYPES))
def test_types_the_importer_lacks_are_unsupported(backend, name):
    with pytest.raises(Unsupported, match=f"Unknown ONNX tensor element type: {REFUSED_TYPES[name]}$"):
        backend.prepare(identity(name, (2, 3)), None)


def test_a_string_tensor_is_unsupported_by_the_runtime(backend):
    with pytest.raises(Unsupported, match="iree's runtime has no element type for string"):
        backend.prepare(identity("string", (2,)), None)


def test_f64_is_not_demoted(backend):
    """1 + 2**-40 and 1e-300 + 1e-300 exist in float64 only."""
    y = backend.run(backend.prepare(F64_ADD, None), [np.array([1.0, 1e-300])])[0]
    assert y.dtype == np.float64 and y[0] == 1.0 + 2.0 ** -40 and y[1] == 2e-300
    assert iree_backend.KEEP_F64 in backend.flags()


def test_the_demotion_flag_replaces_the_default(cache_dir):
    """IREE's own default (f64 demoted to f32) is in force with the flag: an f64 Add is no longer exact in f64
    (3.12: float32's precision in a float64 result), or fails at run (3.13 demotes the result buffer, not its
    view)."""
    b = get_backend("iree", {"cache": str(cache_dir), "flags": "--iree-input-demote-f64-to-f32=true"})
    assert "--iree-input-demote-f64-to-f32=true" in b.flags() and iree_backend.KEEP_F64 not in b.flags()
    assert b.settings()["compiler_flags"] == b.flags()
    try:
        y = b.run(b.prepare(F64_ADD, None), [np.array([1.0, 1e-300])])[0]
    except RuntimeError as exc:
        assert "buffer view byte length 16 exceeds backing buffer byte length 8" in str(exc)
    else:
        assert not (y[0] == 1.0 + 2.0 ** -40 and y[1] == 2e-300), y


def test_wrong_input_count_is_an_error(backend):
    prepared = backend.prepare(identity("float", (2, 3)), None)
    with pytest.raises(ValueError, match="1 inputs, 2 given"):
        backend.run(prepared, [np.zeros((2, 3), np.float32)] * 2)


# ---- a batch: each model's outcome is its own ------------------------------------------------------
def test_a_batch_is_one_invocation_first(mixed):
    _, _, invocations = mixed
    assert invocations[0] == len(MIXED), invocations


def test_good_models_of_a_failing_batch_pass(mixed):
    b = mixed[0]
    for name, n in (("relu_a", 5), ("relu_b", 6)):
        x = np.linspace(-2, 2, n, dtype=np.float32)
        assert (b.run(b.prepare(MIXED[name], None), [x])[0] == np.maximum(x, 0)).all()


def test_a_compile_error_is_its_own_models(mixed):
    b = mixed[0]
    with pytest.raises(Unsupported) as info:
        b.prepare(MIXED["cast_f8_to_u16"], None)
    assert '{name = "onnx.Cast"}> {torch.onnx.to = 4 : si64} : (!torch.vtensor<[2],f8E4M3FN>)' in str(info.value)
    with pytest.raises(RuntimeError) as info:
        b.prepare(MIXED["quantize_f8_saturate0"], None)
    assert not isinstance(info.value, Unsupported)
    assert "failed to legalize operation 'arith.extf' that was explicitly marked illegal" in str(info.value)
    assert "(f8E4M3FN) -> f64" in str(info.value)


def test_a_compiler_crash_is_its_own_models(mixed):
    """In the runner's own process a crash is an error naming it; each crashing model names its own type."""
    b = mixed[0]
    for name, said in (("crash_u16", "ui16"), ("crash_u64", "ui64")):
        with pytest.raises(RuntimeError) as info:
            b.prepare(MIXED[name], None)
        assert str(info.value).startswith("iree-compile crashed on this model: iree-compile was killed by SIGABRT: "
                                          f"LLVM ERROR: Unhandled type in getScalarTypeForType: {said}")


def test_a_crash_leaves_nothing_in_tmpdir(mixed, cache_dir):
    """LLVM's crash handler writes symbolizer-input-* / -output-* to TMPDIR and leaves them when two threads
    crash at once (the two CastLike functions of the batch's first invocation)."""
    _, tmp, _ = mixed
    assert list(tmp.iterdir()) == []
    assert list((cache_dir / "work").iterdir()) == [] and list((cache_dir / "claims").iterdir()) == []


def _die_with_scratch(where: str) -> None:
    from runners.backends import iree_cache

    Path(where).write_text(iree_cache._scratch())  # (what a memory-only cache, cache=off, writes in)
    iree_backend._die_as_the_compiler("iree-compile was killed by SIGABRT", signal.SIGABRT)


def test_a_crashing_model_kills_its_worker_with_the_compilers_signal(tmp_path):
    """In a worker (a child process) the item is a crash: the worker says what the compiler said and dies by
    the compiler's signal, so the runner records this item's crash; its temporary directory goes first."""
    child = multiprocessing.get_context("fork").Process(target=_die_with_scratch, args=(str(tmp_path / "where"),))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGABRT
    scratch = Path((tmp_path / "where").read_text())
    assert scratch.name.startswith("opconform-iree-") and not scratch.exists()


def _wrapper(where: Path, log: Path, mark: str = "") -> Path:
    """An iree-compile that logs each compile's arguments and runs the real one; one whose input holds `mark` it
    kills with SIGSEGV (a crash outside any pass, which only bisection can place)."""
    from iree.compiler.tools.binaries import find_tool

    real = find_tool("iree-compile")
    where.mkdir(parents=True, exist_ok=True)
    script = where / "iree-compile"
    kill = f'for a; do case "$a" in *.mlir) grep -q "{mark}" "$a" && kill -SEGV $$;; esac; done\n' if mark else ""
    script.write_text(f'#!/bin/sh\n[ "$1" = --version ] || echo "$*" >> "{log}"\n{kill}exec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return where


def test_a_crash_outside_a_pass_is_found_by_bisection(cache_dir, tmp_path, monkeypatch):
    log = tmp_path / "log"
    monkeypatch.setenv("IREE_TOOL_PATH", str(_wrapper(tmp_path / "tools", log, mark="7777")))
    b = get_backend("iree", {"cache": str(cache_dir)})
    models = [_relu(11), _relu(7777), _relu(12)]
    b.batcher().compile_together(models)
    assert b.batcher().invocations[0] == 3
    with pytest.raises(RuntimeError, match="iree-compile crashed on this model: iree-compile was killed by SIGSEGV"):
        b.prepare(models[1], None)
    for m in models[:1] + models[2:]:
        n = m.graph.input[0].type.tensor_type.shape.dim[0].dim_value
        x = np.linspace(-1, 1, n, dtype=np.float32)
        assert (b.run(b.prepare(m, None), [x])[0] == np.maximum(x, 0)).all()


# ---- which models go together: the look-ahead and the claims of -j N (compiles recorded, not run) ------------
def _relu_cases(where: Path, families: list[str]) -> list:
    """Relu cases in one folder in this order of names, one of each family given (a model each: its own size)."""
    from generator.case import Case
    from generator.serialize import read_case, write_case

    f = dtypes.get("float")
    for n, family in enumerate(families, 1):
        meta = {"op": "Relu", "domain": "", "opset": 18, "family": family, "spec": {}, "compare": {"mode": "exact"},
                "flags": [], "seed": 0}
        x = np.arange(n, dtype=np.float32) - 1
        model = node_model("Relu", [("x", f, (n,))], [("y", f, (n,))], {}, 18)
        write_case(Case(f"test_relu_{n:02d}", "node", model, [[x]], [[np.maximum(x, 0)]], meta), where)
    return [read_case(where / "node" / f"test_relu_{n:02d}") for n in range(1, len(families) + 1)]


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """(a Batcher on a cache of its own whose compiles are recorded, the keys of each compile, `other`): each model
    compiled gets an error entry; `other` (key -> entry) is a batch another worker holds, done as this one
    compiles."""
    from runners.backends import iree_batch, iree_cache

    b = iree_batch.Batcher(iree_cache.Cache(tmp_path / "cache"), "iree-compile", [], "test", batch=32)
    batches: list[list[str]] = []
    other: dict[str, dict] = {}

    def compile_(models, want):
        batches.append(list(models))
        b.cache.put({k: {"error": f"compiled in batch {len(batches)}"} for k in models}, {})
        b.cache.release(models)
        b.cache.put(dict(other), {})
        b.cache.release(list(other))
        other.clear()
        return b.cache.get(want) if want is not None else {}

    monkeypatch.setattr(b, "_compile", compile_)
    return b, batches, other


def _claimed_by(b, k: str, pid: int) -> None:
    (b.cache.root / "claims" / k).write_text(str(pid))


def test_the_look_ahead_takes_the_next_cases_of_the_family(recorded, tmp_path):
    b, batches, _ = recorded
    cases = _relu_cases(tmp_path / "suite", ["a", "a", "a", "b", "b"])
    assert b.entry(cases[0].model, cases[0]) == {"error": "compiled in batch 1"}
    assert batches == [[b.key(c.model) for c in cases[:3]]]


def test_a_worker_whose_model_another_compiles_compiles_the_next_ones_meanwhile(recorded, tmp_path):
    """Its model is in a live worker's batch: it compiles the models after that batch (of any family), then takes
    the other worker's entry for its own."""
    b, batches, other = recorded
    cases = _relu_cases(tmp_path / "suite", ["a", "a", "a", "b", "b"])
    keys = [b.key(c.model) for c in cases]
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(10)"])  # (then gone: stale claims)
    threading.Thread(target=worker.wait, daemon=True).start()  # (reaped as it ends: no zombie that looks alive)
    try:
        for k in keys[:3]:
            _claimed_by(b, k, worker.pid)
            other[k] = {"error": "the other worker's"}
        assert b.entry(cases[1].model, cases[1]) == {"error": "the other worker's"}
    finally:
        worker.kill()
        worker.wait()
    assert batches == [keys[3:]]


def test_a_claim_whose_worker_is_gone_is_compiled_alone(recorded, tmp_path):
    b, batches, _ = recorded
    cases = _relu_cases(tmp_path / "suite", ["a", "a", "a"])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _claimed_by(b, b.key(cases[0].model), gone.pid)
    assert b.entry(cases[0].model, cases[0]) == {"error": "compiled in batch 1"}
    assert batches == [[b.key(cases[0].model)]]


def test_a_rerun_only_loads(backend, mixed, cache_dir, tmp_path, monkeypatch):
    """A new backend on the same cache compiles nothing for what was compiled (crashes and errors included);
    a model it has not seen is compiled (the counting wrapper counts)."""
    log = tmp_path / "log"
    log.write_text("")
    monkeypatch.setenv("IREE_TOOL_PATH", str(_wrapper(tmp_path / "tools", log)))
    b = get_backend("iree", {"cache": str(cache_dir)})
    assert b.tool() == str(tmp_path / "tools" / "iree-compile")
    for m in [*_good_models(), *MIXED.values()]:
        try:
            b.prepare(m, None)
        except (RuntimeError, Unsupported):
            pass
    assert log.read_text() == "" and b.batcher().invocations == []
    b.prepare(_relu(21), None)
    assert len(log.read_text().splitlines()) == 1 and b.batcher().invocations == [1]


# ---- version, settings, --backend-option ---------------------------------------------------------
def test_version_and_build_are_recorded(backend):
    import importlib.metadata

    assert backend.version() == importlib.metadata.version("iree-base-compiler")
    build = backend.build()
    assert build.startswith(f"IREE compiler version {backend.version()}") and "; LLVM version " in build, build
    assert f"iree-base-runtime {importlib.metadata.version('iree-base-runtime')}" in build


def test_options_are_in_force_and_recorded(cache_dir):
    b = get_backend("iree", {"cache": str(cache_dir), "target": "llvm-cpu", "cpu": "generic", "checker": "1",
                             "flags": "--iree-opt-level=O2", "batch": "4", "device": "local-task"})
    s = b.settings()
    assert s["target"] == "llvm-cpu" and s["device"] == "local-task"
    assert s["compiler_flags"] == ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                                   "--iree-llvmcpu-target-cpu=generic", iree_backend.KEEP_F64, "--iree-opt-level=O2"]
    assert s["importer"].endswith("and onnx.checker")
    assert "batch" not in s and "cache" not in s and b.batch == 4  # (results do not depend on them)
    default = get_backend("iree", {"cache": str(cache_dir)}).settings()
    assert default["device"] == "local-sync" and "--iree-llvmcpu-target-cpu=host" in default["compiler_flags"]
    assert not default["importer"].endswith("onnx.checker")


@pytest.mark.parametrize("options, says", [
    ({"no_such_key": "1"}, "has no option no_such_key; known: target, device, cpu, flags, checker, batch, cache"),
    ({"target": "metal"}, "--backend-option target=metal: expected one of llvm-cpu, vmvx, cuda, hip, vulkan"),
    ({"cpu": "a b"}, "--backend-option cpu=a b: expected one LLVM CPU name"),
    ({"target": "vmvx", "cpu": "znver4"}, "--backend-option cpu=znver4: only for target llvm-cpu (target is vmvx)"),
    ({"flags": "O3"}, "--backend-option flags=O3: 'O3' is no flag (flags start with -)"),
    ({"flags": "'--a"}, "--backend-option flags='--a: cannot split it: No closing quotation"),
    ({"checker": "yes"}, "--backend-option checker=yes: expected one of 0, 1"),
    ({"batch": "0"}, "--backend-option batch=0: expected a whole number from 1 to 256"),
    ({"batch": "257"}, "--backend-option batch=257: expected a whole number from 1 to 256"),
    ({"flags": "--iree-no-such-flag"}, "iree-compile: Unknown command line argument '--iree-no-such-flag'"),
    ({"device": "no-such-driver"}, "NOT_FOUND; no driver 'no-such-driver' registered"),
])
def test_bad_options_are_refused_in_one_line(cache_dir, options, says):
    with pytest.raises(BackendOptionError) as info:
        get_backend("iree", {"cache": str(cache_dir), **options})
    assert says in str(info.value) and "\n" not in str(info.value) and "backend 'iree'" in str(info.value)


def test_a_cache_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(BackendOptionError, match=r"--backend-option cache=.*: not a directory$"):
        get_backend("iree", {"cache": str(tmp_path / "f")})


def test_the_cli_refuses_a_bad_option_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "runners.cli", "run", str(tmp_path), "--backend", "iree",
                           "--backend-option", "cpu=a b"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode != 0
    assert proc.stderr.strip() == "opconform run: error: backend 'iree': --backend-option cpu=a b: expected one LLVM " \
                                  "CPU name", proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


# ---- unsupported or error ---------------------------------------------------------------------------
# (message, unsupported?): what iree-base-compiler 3.13.0 said, verbatim, as the adapter prefixes it (iree import:
# the importer's exception, iree-compile: the compiler's first error line for the function, iree run: the runtime's)
SAYINGS = [
    ("iree import: OnnxImportError: Unknown ONNX tensor element type: 26", True),  # int2
    ("iree import: OnnxImportError: Unknown ONNX tensor element type: 23", True),  # float4e2m1
    ("iree import: OnnxImportError: Unsupported ONNX TypeProto: map_type { key_type: 7 value_type { tensor_type { "
     "elem_type: 1 shape { dim { dim_value: 1 } } } } }", True),  # a map (here a value_info's)
    ("iree import: OnnxImportError: Unsupport list element type", True),  # a sequence of maps (ZipMap's output)
    ("iree import: OnnxImportError: Unhandled ONNX TensorProto data: dims: 1 data_type: 10 int32_data: 15360 name: "
     '"c"', True),  # a float16 initializer in int32_data (raw_data it takes)
    ("iree import: OnnxImportError: Unsupported builtin tensor type", True),  # a string initializer
    ("iree-compile: error: failed to legalize operation 'torch.operator' that was explicitly marked illegal: %1 = "
     '"torch.operator"(%arg0) <{name = "onnx.Cast"}> {torch.onnx.to = 4 : si64} : (!torch.vtensor<[2],f8E4M3FN>) -> '
     "!torch.vtensor<[2],ui16>", True),
    ("iree-compile: error: failed to legalize operation 'torch.operator' that was explicitly marked illegal: %0 = "
     '"torch.operator"(%arg0, %arg1, %arg2) <{name = "onnx.MatMulNBits"}> {torch.onnx.K = 32 : si64, torch.onnx.N = '
     "4 : si64, torch.onnx.accuracy_level = 1 : si64, torch.onnx.bits = 4 : si64, torch.onnx.block_size = 16 : si64}",
     True),
    ("iree's runtime has no element type for string ('x'): HalElementType lists none", True),
    # errors: a lowering of IREE's own that fails, a link failure, a run failure, an importer's failure on a
    # value it needed
    ("iree-compile: error: failed to legalize operation 'arith.extf' that was explicitly marked illegal: %106 = "
     '"arith.extf"(%102) : (f8E4M3FN) -> f64', False),
    ("iree-compile: error: failed to link executable and generate target dylib (check above for more specific "
     "error messages)", False),
    ("iree run: IndexError: Error invoking function: c/runtime/src/iree/hal/buffer_view.c:47: OUT_OF_RANGE; buffer "
     "view byte length 16 exceeds backing buffer byte length 8; while invoking native function "
     "hal.buffer_view.create; while calling import;", False),
    ("iree import: OnnxImportError: Unknown ONNX tensor element type to numpy dtype mapping: 16", False),
    ("iree-compile: iree-compile: Unknown command line argument '--iree-no-such-flag'.", False),
]


@pytest.mark.parametrize("said, unsupported", SAYINGS, ids=[s[:70] for s, _ in SAYINGS])
def test_unsupported_or_error(said, unsupported):
    got = iree_backend._classified(said)
    assert isinstance(got, Unsupported) is unsupported and str(got) == said


def test_every_table_entry_is_exercised_and_documented():
    docs = DOCS.read_text(encoding="utf-8")
    said = [s for s, yes in SAYINGS if yes]
    for pattern in iree_backend.UNSUPPORTED.text:
        assert any(re.search(pattern, s, re.IGNORECASE) for s in said), pattern
        assert f"`{pattern}`".replace("|", "\\|") in docs, pattern


REFUSALS = {  # models that draw the importer's words above (each its own prepare: the importer is fast)
    "Unsupported ONNX TypeProto: map_type": _model(
        [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Identity", ["t"], ["y"])],
        [V("x", TP.FLOAT, [2])], [V("y", TP.FLOAT, [2])],
        value_info=[helper.make_value_info("t", helper.make_map_type_proto(TP.INT64, helper.make_tensor_type_proto(
            TP.FLOAT, [1])))]),
    "Unsupport list element type": _model(
        [helper.make_node("ZipMap", ["x"], ["z"], domain="ai.onnx.ml", classlabels_int64s=[0, 1]),
         helper.make_node("SequenceLength", ["z"], ["y"])], [V("x", TP.FLOAT, [1, 2])], [V("y", TP.INT64, [])],
        domains=[helper.make_opsetid("ai.onnx.ml", 3)]),
    "Unhandled ONNX TensorProto data: dims: 1 data_type: 10": _model(
        [helper.make_node("Add", ["x", "c"], ["y"])], [V("x", TP.FLOAT16, [1])], [V("y", TP.FLOAT16, [1])],
        [helper.make_tensor("c", TP.FLOAT16, [1], [1.0])]),
    "Unsupported builtin tensor type": _model(
        [helper.make_node("Identity", ["c"], ["y"])], [], [V("y", TP.STRING, [1])],
        [helper.make_tensor("c", TP.STRING, [1], [b"a"])]),
}


@pytest.mark.parametrize("says", sorted(REFUSALS))
def test_the_importers_refusals_are_unsupported(cache_dir, says):
    b = get_backend("iree", {"cache": str(cache_dir)})
    with pytest.raises(Unsupported, match=re.escape(f"iree import: OnnxImportError: {says}")):
        b.prepare(REFUSALS[says], None)
