"""Nothing a backend forks outlives its worker (issue 31, part 7), even a child that called setsid(): it left the
worker's process group, which is all the runner used to kill, and once its parent is gone nobody could tell where
it came from. The worker's supervisor (runners/worker_supervisor.py) is a child subreaper and ends every
descendant when the worker ends: at close, after a crash, after a timeout, and when the runner itself is gone."""

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

from runners.results import CRASH, PASS, TIMEOUT, Result
from runners.worker import IsolatedRunner

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent / "cases"
CASE = "test_qlinearconv_auto_pad_notset"
FIXTURE = "fixture_backends:Misbehaving"


def _stub(case: str):
    return lambda i: Result(case=case, dataset=i, kind="node", verdict="error", message="", backend="b",
                            backend_version="0", tier="strict")


def _alive(pid: int) -> bool:
    """Running, not a zombie (the sleepers are children of the worker's supervisor, never of this process)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _sleepers(marks: Path) -> list[int]:
    path = marks / "sleepers"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _gone(pids: list[int], seconds: float = 30.0) -> bool:
    """Every pid gone within the deadline; those left are killed (no test leaves a sleeper behind)."""
    deadline = time.monotonic() + seconds
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    return not left


@pytest.fixture
def marks(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))
    folder = tmp_path / "marks"
    folder.mkdir()
    monkeypatch.setenv("OPCONFORM_TEST_MARKS", str(folder))
    return folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux's")
@pytest.mark.parametrize("how", ["ORPHAN", "SETSID_CHILD"])
@pytest.mark.parametrize("end", ["close", "crash", "timeout"])
def test_a_setsid_child_of_the_backend_ends_with_its_worker(marks, monkeypatch, how, end):
    """ORPHAN: the sleeper's parent (a child of the worker) exited, so it was reparented; SETSID_CHILD: the
    worker's own child. Each is alive while its worker runs, gone once the worker has ended."""
    monkeypatch.setenv(f"OPCONFORM_TEST_{how}", f"{CASE}[0]")
    if end != "close":
        monkeypatch.setenv("OPCONFORM_TEST_SEGFAULT" if end == "crash" else "OPCONFORM_TEST_HANG", f"{CASE}[0]")
    runner = IsolatedRunner(FIXTURE, timeout=3 if end == "timeout" else 60)
    try:
        r = runner.run(SUITE / "node" / CASE, 0, "strict", _stub(CASE))[1]
        sleepers = _sleepers(marks)
        running = [_alive(p) for p in sleepers]  # (close: the worker is still there)
        if end == "close":
            runner.close()
        gone = _gone(sleepers)
    finally:
        runner.close()
    assert r.verdict == {"close": PASS, "crash": CRASH, "timeout": TIMEOUT}[end], r.message
    assert len(sleepers) == 1 and gone
    if end == "close":
        assert running == [True]  # the backend's business while its worker lives


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux's")
@pytest.mark.parametrize("killed", [False, True])
def test_no_setsid_child_outlives_an_opconform_run(marks, tmp_path, killed):
    """Through the command, each of a case's data sets leaving an orphaned setsid() sleeper: none is left after
    the run, nor after the runner is killed outright (SIGKILL: the supervisor sees its control pipe close)."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE / "node" / CASE, suite / CASE)
    env = {**os.environ, "OPCONFORM_TEST_ORPHAN": CASE, "OPCONFORM_TEST_HANG": f"{CASE}[2]" if killed else "",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "runners.cli", "run", str(suite), "--backend", FIXTURE,
                             "--report", str(tmp_path / "r.json"), "--case-timeout", "3600"],
                            cwd=tmp_path, env=env, stdout=open(tmp_path / "out.txt", "wb"), stderr=subprocess.STDOUT)
    try:
        if killed:
            deadline = time.monotonic() + 120
            while not (marks / "hanging").exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert (marks / "hanging").exists()
            proc.kill()
        proc.wait(300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out = (tmp_path / "out.txt").read_text(errors="replace")
    sleepers = _sleepers(marks)
    assert len(sleepers) == 3 and _gone(sleepers), out
    if not killed:
        assert proc.returncode == 0, out
        assert [r["verdict"] for r in json.loads((tmp_path / "r.json").read_text())["records"]] == [PASS] * 3


def test_the_worker_ends_as_its_backend_did(marks, monkeypatch):
    """The runner knows the supervisor's process: it ends with the worker's exit code, or its signal (a crash
    names it), and a backend's exit(0) mid-item is a crash, not a clean end."""
    monkeypatch.setenv("OPCONFORM_TEST_ABORT", f"{CASE}[0]")
    monkeypatch.setenv("OPCONFORM_TEST_EXIT", f"{CASE}[1]")
    runner = IsolatedRunner(FIXTURE, timeout=60)
    try:
        got = [runner.run(SUITE / "node" / CASE, i, "strict", _stub(CASE))[1] for i in range(3)]
    finally:
        runner.close()
    assert [r.verdict for r in got] == [CRASH, CRASH, PASS]
    assert "signal SIGABRT (6)" in got[0].message and "exit code 0" in got[1].message
