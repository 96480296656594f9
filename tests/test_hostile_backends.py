"""Hostile backends (issue 19, items 5, 6, 10, 11, 12): a backend that forks and dies, signals the runner,
floods stdout, returns None or leaks costs its own data sets, never the run, and nothing it starts outlives
the run; a SIGTERM or SIGHUP to the runner is a cancel that writes the results of what ran.

Each backend is a module:attr written to tmp_path (put on sys.path, and on PYTHONPATH for the processes
started from here). Processes are told apart by (pid, start time), so a reused pid is never taken for one
still running; every wait is on a condition, with a generous deadline.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from generator.serialize import read_case
from runners.execute import PreparedCache, run_case_dataset
from runners.results import CRASH, ERROR, FAIL, PASS, PROBE, RESULTS_FORMAT, TIMEOUT, Result
from runners.worker import OUTPUT_TAIL, IsolatedRunner

SUITE = Path(__file__).resolve().parent.parent / "cases"
NODE = "test_qlinearconv_auto_pad_notset"  # 3 data sets, small
NODES = ["test_qlinearconv_auto_pad_notset", "test_qlinearconv_auto_pad_valid", "test_qlinearconv_auto_pad_valid_strides"]
NEGATIVE = "test_dequantizelinear_negative_axis_out_of_range"  # refused at run, no "native" requirement
PROBE_CASE = "test_cast_float32_to_int8_probe"

HOSTILE = '''
import ctypes
import os
import signal
import sys
import time

import numpy as np

from runners.backends.opconform import OpconformBackend

_KEPT = []


def _note(name, text):
    """Append a line to a file in HOSTILE_DIR (what the test waits for and reads)."""
    with open(os.path.join(os.environ["HOSTILE_DIR"], name), "a") as f:
        f.write(text + "\\n")


def _chosen(case):
    return case is not None and case.name in os.environ.get("HOSTILE_CASES", "").split(",")


def _start_time(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def _fork_sleeper(name):
    """A child that sleeps (and holds every fd the worker has, its pipe to the runner too); returns once the
    child has noted its (pid, start time)."""
    path = os.path.join(os.environ["HOSTILE_DIR"], name)
    pid = os.fork()
    if pid == 0:
        try:
            _note(name, f"{os.getpid()} {_start_time(os.getpid())}")
            time.sleep(3600)
        finally:
            os._exit(0)
    while not (os.path.exists(path) and f"{pid} " in open(path).read()):
        time.sleep(0.01)
    return pid


class Base(OpconformBackend):
    name = "hostile"

    def prepare(self, model, case):
        return (super().prepare(model, case), case)

    def run(self, prepared, inputs):
        prepared, case = prepared
        if _chosen(case):
            self.act(case)
        return super().run(prepared, inputs)


class ForkThenSegfault(Base):
    def act(self, case):
        _fork_sleeper("children")
        ctypes.string_at(0)


class ForkThenHang(Base):
    def act(self, case):
        _fork_sleeper("children")
        time.sleep(3600)


class ForkAndGoOn(Base):
    def act(self, case):
        _fork_sleeper("children")


class SignalsTheRunner(Base):
    """SIGTERM and SIGHUP to the runner, from the worker and from a child of it; and to the worker's parent,
    its supervisor (runners/worker_supervisor.py)."""

    def act(self, case):
        import multiprocessing

        runner = multiprocessing.parent_process().pid  # the process that started the worker's supervisor
        for pid in (os.getppid(), runner):
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGHUP)
        pid = os.fork()
        if pid == 0:
            os.kill(runner, signal.SIGTERM)
            os._exit(0)
        _KEPT.append(pid)  # not reaped here: a zombie until the worker ends


class Hangs(Base):
    def act(self, case):
        _note("hanging", f"{os.getpid()} {_start_time(os.getpid())}")
        time.sleep(3600)


class Noisy(Base):
    """200 KiB to Python's stdout, 200 KiB to fd 2, then a line through Python's stdout and one through C
    stdio, both left in their buffers, on every run; wrong outputs (float64) and a last word before a segfault
    on the chosen cases."""

    def run(self, prepared, inputs):
        prepared_, case = prepared
        print("py-noise " * 25000, flush=True)
        os.write(2, b"fd2-noise " * 20000 + b"\\n")
        print(f"NOISY-END {case.name}")
        ctypes.CDLL(None).puts(b"C-NOISE-END")
        if _chosen(case) and "crash" in os.environ.get("HOSTILE_MODE", ""):
            sys.stdout.flush()
            os.write(2, b"LAST WORDS before the crash\\n")
            ctypes.string_at(0)
        outputs = OpconformBackend.run(self, prepared_, inputs)
        if _chosen(case):
            print(f"WRONG {case.name}")
            return [np.asarray(o).astype(np.float64) for o in outputs]
        return outputs


class Returns(OpconformBackend):
    """Accepts every model; run returns what RETURNS names."""

    name = "returns"

    def prepare(self, model, case):
        return "accepted"

    def run(self, prepared, inputs):
        return {"none": None, "int": 5}[os.environ["RETURNS"]]


class Leaky(Base):
    """Keeps LEAK_MIB MiB it never frees at each run (reserved, not written: it counts against RLIMIT_DATA);
    the chosen cases ask for HUGE_MIB at once."""

    def run(self, prepared, inputs):
        prepared_, case = prepared
        mib = int(os.environ["HUGE_MIB"]) if _chosen(case) else int(os.environ.get("LEAK_MIB", "0"))
        if mib:
            _KEPT.append(np.empty(mib << 20, np.uint8))
        return OpconformBackend.run(self, prepared_, inputs)
'''


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """The hostile backends' module on sys.path and PYTHONPATH; HOSTILE_DIR for what they write."""
    mod = tmp_path / "mod"
    mod.mkdir()
    (mod / "hostile_backends.py").write_text(HOSTILE)
    notes = tmp_path / "notes"
    notes.mkdir()
    monkeypatch.syspath_prepend(str(mod))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(mod), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("HOSTILE_DIR", str(notes))
    return notes


def _stub(case: str, kind: str = "node"):
    return lambda i: Result(case=case, dataset=i, kind=kind, verdict="error", message="", backend="b",
                            backend_version="0", tier="strict")


def _proc(line: str) -> tuple[int, str]:
    pid, start = line.split()
    return int(pid), start


def _running(proc: tuple[int, str]) -> bool:
    """Whether the process (pid, start time) is still there and not a zombie."""
    pid, start = proc
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == start and fields[0] != "Z"


def _wait_until(predicate, seconds: float = 120.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _procs(path: Path) -> list[tuple[int, str]]:
    return [_proc(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def _gone(procs, seconds: float = 60.0) -> bool:
    """Every process gone within the deadline (those still there are killed, so no test leaves any)."""
    ok = _wait_until(lambda: not any(_running(p) for p in procs), seconds)
    for p in procs:
        if _running(p):
            os.kill(p[0], signal.SIGKILL)
    return ok


def _suite(tmp_path: Path, names: list[str], kind: str = "node") -> Path:
    """A copy of some cases of the committed suite."""
    s = tmp_path / "suite"
    for n in names:
        shutil.copytree(SUITE / kind / n, s / n)
    return s


# ---- item 5: a death is seen by the process; the whole group goes on death, timeout and close -----------


def test_a_worker_that_forks_and_segfaults_is_a_crash_and_its_child_is_killed(hostile, monkeypatch):
    """The child holds the worker's pipe open: the death is seen by the process (crash, not a timeout after
    --case-timeout), and the child goes with the worker's process group."""
    monkeypatch.setenv("HOSTILE_CASES", NODE)
    runner = IsolatedRunner("hostile_backends:ForkThenSegfault", timeout=120)
    try:
        t0 = time.monotonic()
        r = runner.run(SUITE / "node" / NODE, 0, "strict", _stub(NODE))[1]
        took = time.monotonic() - t0
        children = _procs(hostile / "children")
        gone = _gone(children)  # killed with the worker's group, before the run goes on
        assert r.verdict == CRASH and "SIGSEGV" in r.message, (r.verdict, r.message)
        assert took < 100  # not the timeout
        assert gone
        other = "test_qlinearconv_auto_pad_valid"
        assert runner.run(SUITE / "node" / other, 0, "strict", _stub(other))[1].verdict == PASS
    finally:
        runner.close()
    assert len(children) == 1


def test_a_timeout_kills_what_the_worker_forked(hostile, monkeypatch):
    monkeypatch.setenv("HOSTILE_CASES", NODE)
    runner = IsolatedRunner("hostile_backends:ForkThenHang", timeout=10)
    try:
        r = runner.run(SUITE / "node" / NODE, 0, "strict", _stub(NODE))[1]
        children = _procs(hostile / "children")
        gone = _gone(children, 30)  # at the timeout, not at the end of the run
        assert r.verdict == TIMEOUT and len(children) == 1 and gone
    finally:
        runner.close()


def test_nothing_a_backend_forked_outlives_the_runner(hostile, monkeypatch):
    monkeypatch.setenv("HOSTILE_CASES", NODE)
    runner = IsolatedRunner("hostile_backends:ForkAndGoOn", timeout=120)
    try:
        got = [runner.run(SUITE / "node" / NODE, i, "strict", _stub(NODE), more=[1, 2][i:])[1].verdict
               for i in range(3)]
        children = _procs(hostile / "children")
        running = [_running(c) for c in children]  # the backend's business while its worker runs
    finally:
        runner.close()
    assert _gone(_procs(hostile / "children"), 30)
    assert got == [PASS] * 3 and running == [True] * 3


def test_a_backend_that_signals_the_runner_does_not_end_the_run(hostile, tmp_path):
    """SIGTERM and SIGHUP from the worker (and SIGTERM from a child of it) to the pytest process: ignored,
    said in the summary; every item gets its verdict and the results file is written."""
    suite = _suite(tmp_path, NODES)
    report = tmp_path / "results.json"
    proc = _pytest(tmp_path, suite, "hostile_backends:SignalsTheRunner", report, env={"HOSTILE_CASES": NODES[1]})
    out = _finish(proc)
    assert proc.returncode == 0, out
    doc = json.loads(report.read_text())
    assert len(doc["records"]) == 9 and {r["verdict"] for r in doc["records"]} == {PASS}
    assert "opconform: ignored" in out and "SIGTERM" in out and "SIGHUP" in out, out


# ---- item 6: SIGTERM / SIGHUP are a cancel: partial results, atomically, never a stale file --------------


def _pytest(tmp_path: Path, suite: Path, backend: str, report: Path, *args: str, env: dict | None = None):
    """pytest on `suite` in a process of its own (its output in tmp_path/out.txt)."""
    out = open(tmp_path / "out.txt", "wb")
    cmd = [sys.executable, "-m", "pytest", str(suite), "--backend", backend, "--report", str(report),
           "-p", "no:cacheprovider", "-p", "no:randomly", "-q", *args]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    proc.out_path = tmp_path / "out.txt"
    out.close()
    return proc


def _finish(proc, seconds: float = 300) -> str:
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("pytest did not end: " + proc.out_path.read_text(errors="replace")[-3000:]) from None
    return proc.out_path.read_text(errors="replace")


def _wait_for_hang(proc, notes: Path) -> None:
    """Until the backend hangs (it has noted its pid); fails at once if pytest ended before that."""
    _wait_until(lambda: (notes / "hanging").exists() or proc.poll() is not None, 300)
    assert (notes / "hanging").exists(), proc.out_path.read_text(errors="replace")[-3000:]


def _stale(report: Path) -> None:
    """A results file of an earlier run at `report`."""
    report.write_text(json.dumps({"format": RESULTS_FORMAT, "created": "an earlier run", "exitstatus": 0,
                                  "counts": {"pass": 1}, "records": [{"case": "stale", "dataset": 0,
                                                                      "verdict": "pass"}]}))


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_cancel_the_run_and_write_what_ran(hostile, tmp_path, signo):
    """The signal arrives while the third case hangs: pytest ends as on Ctrl-C (exit status 2), the results
    of the first two cases are written over the earlier run's file (header exitstatus 2), the hanging worker
    is gone."""
    names = sorted(NODES)
    suite = _suite(tmp_path, names)
    report = tmp_path / "results.json"
    _stale(report)
    proc = _pytest(tmp_path, suite, "hostile_backends:Hangs", report, "--case-timeout", "3600",
                   env={"HOSTILE_CASES": names[2]})
    try:
        _wait_for_hang(proc, hostile)
        proc.send_signal(signo)
        out = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    hanging = _procs(hostile / "hanging")
    assert _gone(hanging, 30)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out
    doc = json.loads(report.read_text())
    assert doc["exitstatus"] == pytest.ExitCode.INTERRUPTED and doc["created"] != "an earlier run"
    assert sorted((r["case"], r["dataset"], r["verdict"]) for r in doc["records"]) == [
        (n, i, PASS) for n in names[:2] for i in range(3)]
    assert f"cancelled by {signal.Signals(signo).name}" in out, out
    assert not list(tmp_path.glob(".results.json.*"))  # no temporary file left behind


def test_a_run_killed_outright_leaves_no_stale_results_file(hostile, tmp_path):
    """SIGKILL (what follows SIGTERM after a grace period): no results file at all, not the earlier run's;
    the worker dies with the runner, and no file of the worker's is left (its output file has no name once
    the worker has opened it)."""
    suite = _suite(tmp_path, NODES)
    report = tmp_path / "results.json"
    _stale(report)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _pytest(tmp_path, suite, "hostile_backends:Hangs", report, "--case-timeout", "3600",
                   env={"HOSTILE_CASES": ",".join(NODES), "TMPDIR": str(tmp)})
    try:
        _wait_for_hang(proc, hostile)
        proc.kill()
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _gone(_procs(hostile / "hanging"), 30)  # PR_SET_PDEATHSIG
    assert not report.exists()
    assert not list(tmp.glob("opconform-worker-*"))


def test_sigterm_to_an_xdist_controller_writes_the_results_or_none(hostile, tmp_path):
    """pytest-xdist: the controller gets SIGTERM while a worker's backend hangs; it ends interrupted, with
    the results of what ran written, and never the earlier run's file in place."""
    names = sorted(NODES)
    suite = _suite(tmp_path, names)
    report = tmp_path / "results.json"
    _stale(report)
    proc = _pytest(tmp_path, suite, "hostile_backends:Hangs", report, "--case-timeout", "3600", "-n", "2",
                   env={"HOSTILE_CASES": names[1]})
    try:
        _wait_for_hang(proc, hostile)
        proc.send_signal(signal.SIGTERM)
        out = _finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _gone(_procs(hostile / "hanging"), 60)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out
    doc = json.loads(report.read_text())
    assert doc["exitstatus"] == pytest.ExitCode.INTERRUPTED and doc["created"] != "an earlier run"
    assert all(r["verdict"] == PASS and r["case"] != names[1] for r in doc["records"])


# ---- item 10: the backend's output is captured per item, a bounded tail kept --------------------------------


def test_a_backend_flooding_stdout_is_captured_per_item(hostile, tmp_path):
    """Each run writes ~400 KiB (Python, fd 2, C stdio): none of it reaches the terminal (-s: pytest captures
    nothing), each record keeps the tail of its own item's output, the failing item's message shows it."""
    suite = _suite(tmp_path, NODES[:2])
    report = tmp_path / "results.json"
    proc = _pytest(tmp_path, suite, "hostile_backends:Noisy", report, "-s", env={"HOSTILE_CASES": NODES[1]})
    out = _finish(proc)
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert len(out) < 100_000, out[-3000:]
    records = {(r["case"], r["dataset"]): r for r in json.loads(report.read_text())["records"]}
    assert len(records) == 6
    for (case, i), r in records.items():  # the buffers are flushed into the item that filled them
        assert "C-NOISE-END" in r["output"][-200:] and f"NOISY-END {case}" in r["output"][-200:]
        assert "fd2-noise" in r["output"] and "earlier bytes not kept" in r["output"]
        assert len(r["output"].encode()) < OUTPUT_TAIL + 100
    bad = records[(NODES[1], 0)]
    assert bad["verdict"] == FAIL and "the backend wrote" in bad["message"] and f"WRONG {NODES[1]}" in bad["message"]
    assert records[(NODES[0], 0)]["message"].count("\n") == 0  # a pass's message carries no output
    assert f"WRONG {NODES[1]}" in out  # the failure's message, attributed to its item


def test_the_output_before_a_crash_is_the_crashed_items(hostile, monkeypatch):
    monkeypatch.setenv("HOSTILE_CASES", NODE)
    monkeypatch.setenv("HOSTILE_MODE", "crash")
    runner = IsolatedRunner("hostile_backends:Noisy", timeout=120)
    try:
        r = runner.run(SUITE / "node" / NODE, 1, "strict", _stub(NODE))[1]
    finally:
        runner.close()
    assert r.verdict == CRASH
    assert r.output.rstrip().endswith("LAST WORDS before the crash") and "LAST WORDS" in r.message
    assert len(r.output.encode()) < OUTPUT_TAIL + 100


# ---- item 11: any return value gets a verdict ------------------------------------------------------------


class _Returns:
    """An in-process backend that accepts every model and returns `value` (or what calling it gives)."""

    name = "returns"

    def __init__(self, value):
        self.value = value

    def version(self):
        return "0"

    def prepare(self, model, case):
        return "accepted"

    def run(self, prepared, inputs):
        return self.value() if callable(self.value) else self.value


class _Unreadable:
    def __iter__(self):
        raise RuntimeError("the backend's object")


@pytest.mark.parametrize("value, what", [
    (None, "returned None"), (5, "returned an int (not a list of outputs)"),
    (np.zeros(3), "returned a ndarray (not a list of outputs)"), ("text", "returned a str (not a list of outputs)"),
    ({"y": np.zeros(3)}, "returned a dict (not a list of outputs)"),
    (_Unreadable(), "returned a _Unreadable whose items cannot be read (RuntimeError: the backend's object)"),
])
@pytest.mark.parametrize("kind, case, verdict", [("negative", NEGATIVE, FAIL), ("node", NODE, FAIL),
                                                 ("probe", PROBE_CASE, PROBE)])
def test_any_return_value_gets_a_verdict(value, what, kind, case, verdict):
    loaded = read_case(SUITE / kind / case)
    r = run_case_dataset(_Returns(value), loaded, 0, "strict", PreparedCache())
    assert r.verdict == verdict and what in r.message, (r.verdict, r.message)
    assert "opconform bug" not in r.message


def test_our_own_bug_is_an_error_that_says_so_never_an_escape(monkeypatch):
    import runners.execute as execute

    def broken(*args, **kwargs):
        raise TypeError("object of type 'NoneType' has no len()")

    monkeypatch.setattr(execute, "_compare", broken)
    loaded = read_case(SUITE / "node" / NODE)
    r = run_case_dataset(_Returns(lambda: list(loaded.outputs[0])), loaded, 0, "strict", PreparedCache())
    assert r.verdict == ERROR and "opconform bug" in r.message and "has no len()" in r.message


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_returning_none_is_a_verdict_in_the_worker_and_in_process(hostile, tmp_path, isolation):
    """It crashed the worker on a negative case (len(None)), charged to the backend as a crash; in process
    the record went missing."""
    suite = tmp_path / "suite"
    for kind, case in [("negative", NEGATIVE), ("node", NODE), ("probe", PROBE_CASE)]:
        shutil.copytree(SUITE / kind / case, suite / kind / case)
    report = tmp_path / "results.json"
    proc = _pytest(tmp_path, suite, "hostile_backends:Returns", report, "--isolation", isolation,
                   env={"RETURNS": "none"})
    out = _finish(proc)
    got = {(r["case"], r["dataset"]): (r["verdict"], "returned None" in r["message"])
           for r in json.loads(report.read_text())["records"]}
    assert got == {(NEGATIVE, 0): (FAIL, True), (NODE, 0): (FAIL, True), (NODE, 1): (FAIL, True),
                   (NODE, 2): (FAIL, True), (PROBE_CASE, 0): (PROBE, True)}, out[-3000:]


# ---- item 12: out of memory says what the worker held before the item ---------------------------------------


def test_out_of_memory_says_what_the_worker_held_before_the_item(hostile, monkeypatch):
    """A backend that keeps 128 MiB at each run under a 512M cap: the item that hits the cap is told that the
    worker had grown before it started, by earlier items."""
    monkeypatch.setenv("LEAK_MIB", "128")
    names = sorted(p.name for p in (SUITE / "node").iterdir() if p.name.startswith("test_cast_float32_to"))[:8]
    runner = IsolatedRunner("hostile_backends:Leaky", timeout=120, memory=512 << 20)
    try:
        got = [runner.run(SUITE / "node" / n, 0, "strict", _stub(n))[1] for n in names]
    finally:
        runner.close()
    oom = [r for r in got if r.verdict == ERROR]
    assert oom, [r.verdict for r in got]
    for r in oom:
        assert "out of memory (--case-memory 512M)" in r.message
        assert "the worker held" in r.message and "came from earlier items" in r.message, r.message
        assert r.worker_memory is not None and r.worker_memory > 200 << 20
        assert r.to_record()["worker_memory"] == r.worker_memory


def test_an_item_that_alone_exceeds_the_cap_is_not_told_it_was_earlier_items(hostile, monkeypatch):
    monkeypatch.setenv("HOSTILE_CASES", NODE)
    monkeypatch.setenv("HUGE_MIB", "1024")
    runner = IsolatedRunner("hostile_backends:Leaky", timeout=120, memory=512 << 20)
    try:
        r = runner.run(SUITE / "node" / NODE, 0, "strict", _stub(NODE))[1]
    finally:
        runner.close()
    assert r.verdict == ERROR and "out of memory (--case-memory 512M)" in r.message, r.message
    assert "the worker held" in r.message and "earlier items" not in r.message, r.message
