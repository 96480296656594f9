"""--isolation none (issue 31, part 7): a backend's os._exit(0) during a data set made a green run with no output.
Now an exit the backend asks of Python is that item's crash and the run goes on; the run says at its start and in
its summary that a backend's crash or exit ends it otherwise; and a gate (--baseline) refuses it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runners.in_process import LINE

HERE = Path(__file__).resolve().parent
NODES = ["test_qlinearconv_auto_pad_notset", "test_qlinearconv_auto_pad_valid"]
FIXTURE = "fixture_backends:Misbehaving"


def _command(runner: str, *args: str) -> list[str]:
    if runner == "pytest":
        return [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
    return [sys.executable, "-m", "runners.cli", "run", *args]


def _run(tmp_path: Path, runner: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    suite = tmp_path / "suite"
    if not suite.exists():
        for name in NODES:
            shutil.copytree(HERE.parent / "cases" / "node" / name, suite / name)
    env = {**os.environ, **(env or {}),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(_command(runner, str(suite), "--backend", FIXTURE, *args), cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("call", ["EXIT", "SYSEXIT"])
@pytest.mark.parametrize("runner", ["run", "pytest"])
def test_a_backends_exit_in_process_is_its_items_crash_and_the_run_goes_on(tmp_path, runner, call):
    done = _run(tmp_path, runner, "--isolation", "none", "--report", str(tmp_path / "r.json"),
                env={f"OPCONFORM_TEST_{call}": f"{NODES[0]}[1]"})
    out = done.stdout + done.stderr
    assert done.returncode == 1, out  # a crash fails its item
    verdicts = {(r["case"], r["dataset"]): r for r in json.loads((tmp_path / "r.json").read_text())["records"]}
    assert {k: r["verdict"] for k, r in verdicts.items()} == {
        (n, i): "crash" if (n, i) == (NODES[0], 1) else "pass" for n in NODES for i in range(3)}
    crash = verdicts[(NODES[0], 1)]["message"]
    assert ("os._exit(0)" if call == "EXIT" else "SystemExit(0)") in crash and "--isolation none" in crash
    assert out.count(LINE) == 2, out  # when it starts, and in the summary
    assert "Traceback" not in out


@pytest.mark.parametrize("runner", ["run", "pytest"])
def test_isolation_none_is_refused_with_a_baseline(tmp_path, runner):
    """In this process a backend's exit(0) would end a gate with exit status 0: a gate runs it in a worker."""
    done = _run(tmp_path, runner, "--isolation", "none", "--baseline", str(tmp_path / "b.json"), "--update-baseline")
    assert done.returncode == 4, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if "--isolation none" in line]
    assert len(lines) == 1 and "--baseline" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "b.json").exists()
