"""Interrupts at any moment (issue 31, part 6): SIGINT, SIGTERM or SIGHUP before collection ends, while the worker
starts, mid-run or while the results file is written ends either runner with exit status 2, one line saying so,
no traceback (the runner's or a worker's), and a results file whose header says 2, holding what was done.

Each signal is sent once a marker says the moment has come (tests/fixture_backends.py notes them): the backend
loading in the runner or in the worker, a worker's spawn bootstrap (the driver below, as the worker's main
module, notes it and waits there), a data set hanging, the results file being written (the driver makes that
write wait). Nothing races a real backend's start-up.
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

import pytest

HERE = Path(__file__).resolve().parent
NODES = ["test_qlinearconv_auto_pad_notset", "test_qlinearconv_auto_pad_valid"]  # 3 data sets each, small
FIXTURE = "fixture_backends:SlowToStart"

DRIVER = '''
import os, sys, time

def mark(what):
    with open(os.path.join(os.environ["OPCONFORM_TEST_MARKS"], what), "a") as f:
        f.write(f"{os.getpid()}\\n")

if __name__ == "__mp_main__" and os.environ.get("DRIVER_BOOT"):  # a worker's spawn bootstrap: still in the
    mark("bootstrap")                                             # runner's process group
    time.sleep(float(os.environ["DRIVER_BOOT"]))

if __name__ == "__main__":
    if os.environ.get("DRIVER_SLOW_WRITE"):  # the results file's write takes a while
        import runners.results as results
        real = results.write_atomically

        def slow(path, text):
            if '"records"' in text:
                mark("writing")
                time.sleep(float(os.environ["DRIVER_SLOW_WRITE"]))
            return real(path, text)

        results.write_atomically = slow
    if sys.argv[1] == "pytest":
        import pytest
        sys.exit(pytest.main(sys.argv[2:]))
    from runners.cli import main
    sys.exit(main(sys.argv[1:]))
'''

# moment -> (the marker to wait for, the signal, to the whole process group (a terminal's Ctrl-C), environment,
#            the records the results file holds: "none", "first" (the first case's), "all")
MOMENTS = {
    "set-up": ("runner-loading", signal.SIGTERM, False, {"OPCONFORM_TEST_RUNNER_LOAD": "3"}, "none"),
    "bootstrap": ("bootstrap", signal.SIGINT, True, {"DRIVER_BOOT": "1"}, "none"),
    "start-up": ("worker-loading", signal.SIGTERM, False, {"OPCONFORM_TEST_WORKER_LOAD": "120"}, "none"),
    "mid-run": ("hanging", signal.SIGHUP, False, {"OPCONFORM_TEST_HANG": NODES[1]}, "first"),
    "final write": ("writing", signal.SIGTERM, False, {"DRIVER_SLOW_WRITE": "3"}, "all"),
}


def _run(tmp_path: Path, runner: str, env: dict) -> tuple[subprocess.Popen, Path, Path]:
    suite = tmp_path / "suite"
    for name in NODES:
        shutil.copytree(HERE.parent / "cases" / "node" / name, suite / name)
    marks = tmp_path / "marks"
    marks.mkdir()
    (tmp_path / "driver.py").write_text(DRIVER)
    report = tmp_path / "results.json"
    args = [str(suite), "--backend", FIXTURE, "--report", str(report), "--case-timeout", "3600"]
    if runner == "pytest":
        args += ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
    env = {**os.environ, **env, "OPCONFORM_TEST_MARKS": str(marks),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, str(tmp_path / "driver.py"), runner, *args], cwd=tmp_path, env=env,
                            stdout=open(tmp_path / "out.txt", "wb"), stderr=open(tmp_path / "err.txt", "wb"),
                            start_new_session=True)  # its own process group, as a terminal's foreground job
    return proc, marks, report


def _wait(proc: subprocess.Popen, path: Path, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists(), f"{path.name} never came (exit status {proc.poll()})"


def _end(proc: subprocess.Popen, seconds: float = 120.0) -> int:
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise AssertionError("the runner did not end") from None


@pytest.mark.parametrize("moment", list(MOMENTS))
@pytest.mark.parametrize("runner", ["run", "pytest"])
def test_an_interrupt_at_any_moment_ends_the_run_with_2_one_line_and_what_was_done(tmp_path, runner, moment):
    marker, signo, group, env, held = MOMENTS[moment]
    proc, marks, report = _run(tmp_path, runner, env)
    try:
        _wait(proc, marks / marker)
        (os.killpg if group else os.kill)(proc.pid, signo)
        status = _end(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = (tmp_path / "out.txt").read_text(errors="replace")
    err = (tmp_path / "err.txt").read_text(errors="replace")
    assert status == 2, out + err
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err, out + err
    assert (out + err).count("opconform: interrupted") == 1, out + err
    assert f"cancelled by {signal.Signals(signo).name}" in out + err
    doc = json.loads(report.read_text())
    assert doc["exitstatus"] == 2
    want = {"none": [], "first": [(NODES[0], i) for i in range(3)],
            "all": [(n, i) for n in NODES for i in range(3)]}[held]
    assert sorted((r["case"], r["dataset"]) for r in doc["records"]) == want
    assert all(r["verdict"] == "pass" for r in doc["records"])
    assert not list(tmp_path.glob(".results.json.*"))  # no temporary file left


def test_a_signal_pending_when_a_worker_starts_is_dropped_not_a_traceback():
    """A worker starts in the runner's process group, with the runner's mask (the three signals blocked): a
    terminal's Ctrl-C that reached it there was pending, and unblocking it raised KeyboardInterrupt in
    cancel.in_worker (two tracebacks on the terminal, one per worker)."""
    code = ("import os, signal\n"
            "from runners import cancel\n"
            "signal.pthread_sigmask(signal.SIG_BLOCK, cancel.SIGNALS)\n"
            "for s in cancel.SIGNALS:\n"
            "    os.kill(os.getpid(), s)\n"
            "cancel.in_worker()\n"
            "print('still here', signal.pthread_sigmask(signal.SIG_BLOCK, []) & set(cancel.SIGNALS))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == "still here set()"  # and unblocked afterwards


def test_opconform_run_ignores_a_backends_signals(tmp_path):
    """The backend sends the runner 20 SIGTERMs and 20 SIGHUPs: all ignored, each known by its sender. numpy's
    thread pool, started by the command line's parser before the signals were taken over, got some of them
    without their sender (a cancel)."""
    suite = tmp_path / "suite"
    for name in NODES:
        shutil.copytree(HERE.parent / "cases" / "node" / name, suite / name)
    env = {**os.environ, "OPCONFORM_TEST_SIGNAL": NODES[0], "OPCONFORM_TEST_SIGNALS": "20",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "runners.cli", "run", str(suite), "--backend",
                           "fixture_backends:Misbehaving", "--report", str(tmp_path / "r.json")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "opconform: ignored" in done.stdout and "cancelled" not in done.stdout, done.stdout  # (pending
    # signals of one number merge: fewer than 120 are counted)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["exitstatus"] == 0 and len(doc["records"]) == 6
