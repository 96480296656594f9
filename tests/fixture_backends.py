"""Misbehaving backends for the isolation tests: the opconform backend, except on chosen cases.

Chosen by the environment (spawned worker processes inherit it), one variable per behaviour, each a
comma-separated list of case names (every data set) or `name[i]` (data set i only):
OPCONFORM_TEST_SEGFAULT, _ABORT, _HANG, _RAISE, _WRONG_DTYPE, _WRONG_SHAPE, _UNSUPPORTED (raises Unsupported),
_LEAK (keeps another OPCONFORM_TEST_LEAK_MIB, default 128, of address space it never frees at each run: a backend
that leaks), _OURS_OOM (outputs that raise MemoryError when opconform reads them: our own code out of memory), _EXIT
(os._exit(0)), _SYSEXIT (sys.exit(0)), _ORPHAN / _SETSID_CHILD (before running: a sleeper that called
setsid(), its parent exited / the worker itself), _SIGNAL (OPCONFORM_TEST_SIGNALS SIGTERMs and SIGHUPs to
the runner). Where OPCONFORM_TEST_MARKS names a folder, a sleeper, a hang and SlowToStart's loading note
their pid in a file of it (sleepers, hanging, worker-loading, runner-loading): what a test waits for.
Used as `--backend fixture_backends:Misbehaving` with tests/ on sys.path. `Configurable` is Misbehaving with a
--backend-option (tag, recorded in its settings). `FailsInWorker` loads only outside a worker process.
`SlowToStart` takes OPCONFORM_TEST_WORKER_IMPORT seconds to import and OPCONFORM_TEST_WORKER_LOAD to load in a
worker, OPCONFORM_TEST_RUNNER_LOAD to load in the runner.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import time

import numpy as np

from runners.backends.base import Unsupported
from runners.backends.opconform import OpconformBackend

_LEAKED: list = []  # what LEAK keeps, for the life of the worker


def mark(what: str) -> None:
    """Note this process's pid under OPCONFORM_TEST_MARKS/<what> (if set)."""
    folder = os.environ.get("OPCONFORM_TEST_MARKS")
    if folder:
        with open(os.path.join(folder, what), "a") as f:
            f.write(f"{os.getpid()}\n")


def _in_worker() -> bool:
    return multiprocessing.parent_process() is not None


if _in_worker():  # a backend whose import takes long (a runtime's libraries): before the worker is ready
    time.sleep(float(os.environ.get("OPCONFORM_TEST_WORKER_IMPORT", "0")))


def _setsid_sleeper(orphan: bool) -> None:
    """A child that calls setsid() (leaving the worker's process group) and sleeps; orphan: its parent, a child
    of the worker, exits first. Returns once its pid is noted in marks/sleepers."""
    before = _count("sleepers")
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if orphan and os.fork():
            os._exit(0)
        mark("sleepers")
        time.sleep(600)
        os._exit(0)
    if orphan:
        os.waitpid(pid, 0)
    while _count("sleepers") == before:
        time.sleep(0.01)


def _count(what: str) -> int:
    try:
        with open(os.path.join(os.environ["OPCONFORM_TEST_MARKS"], what)) as f:
            return sum(1 for line in f if line.strip())
    except FileNotFoundError:
        return 0


def _chosen(what: str, case, inputs) -> bool:
    if case is None:
        return False
    names = {n for n in os.environ.get(f"OPCONFORM_TEST_{what}", "").split(",") if n}
    if case.name in names:
        return True
    # the runner hands the case's own arrays (execute._inputs), so a data set is known by identity
    return any(f"{case.name}[{i}]" in names and inputs and inputs[0] is ds[0]
               for i, ds in enumerate(case.inputs) if ds)


class Misbehaving(OpconformBackend):
    name = "misbehaving"

    def prepare(self, model, case):
        return (super().prepare(model, case), case)

    def run(self, prepared, inputs):
        prepared, case = prepared
        if _chosen("ORPHAN", case, inputs) or _chosen("SETSID_CHILD", case, inputs):
            _setsid_sleeper(orphan=_chosen("ORPHAN", case, inputs))
        if _chosen("SEGFAULT", case, inputs):
            ctypes.string_at(0)  # a real segmentation fault, as a native backend would have
        if _chosen("ABORT", case, inputs):
            os.abort()
        if _chosen("SIGNAL", case, inputs):
            for _ in range(int(os.environ.get("OPCONFORM_TEST_SIGNALS", "1"))):
                for signo in (signal.SIGTERM, signal.SIGHUP):
                    os.kill(multiprocessing.parent_process().pid, signo)  # the runner (the worker's parent is
                    # its supervisor, runners/worker_supervisor.py)
        if _chosen("EXIT", case, inputs):
            os._exit(0)
        if _chosen("SYSEXIT", case, inputs):
            sys.exit(0)
        if _chosen("HANG", case, inputs):
            mark("hanging")
            time.sleep(3600)
        if _chosen("LEAK", case, inputs):
            # allocated, never written: it counts against the worker's cap (RLIMIT_DATA) without using RAM
            _LEAKED.append(np.empty(int(os.environ.get("OPCONFORM_TEST_LEAK_MIB", "128")) << 20, np.uint8))
        if _chosen("RAISE", case, inputs):
            raise RuntimeError("fixture backend: raised on purpose")
        if _chosen("UNSUPPORTED", case, inputs):
            raise Unsupported("fixture backend: refused on purpose")
        outputs = super().run(prepared, inputs)
        if _chosen("OURS_OOM", case, inputs):
            return _OutOfMemory()
        if _chosen("WRONG_DTYPE", case, inputs):
            outputs = [np.asarray(o).astype(np.float64) if np.asarray(o).dtype != np.float64
                       else np.asarray(o).astype(np.float32) for o in outputs]
        if _chosen("WRONG_SHAPE", case, inputs):
            outputs = [np.concatenate([np.ravel(o), np.ravel(o)[:1]]) for o in outputs]
        return outputs


class Configurable(Misbehaving):
    name = "configurable"
    OPTIONS = {"tag": "any text, recorded in the settings"}
    tag = None

    def configure(self, options: dict[str, str]) -> None:
        self.tag = options.get("tag")

    def settings(self) -> dict:
        return {**super().settings(), "tag": self.tag}


class FailsInWorker(Misbehaving):
    """Loads in the pytest process, fails to load in the worker (e.g. a device only the parent sees)."""

    name = "fails-in-worker"

    def __init__(self):
        import multiprocessing

        if multiprocessing.parent_process() is not None:
            raise RuntimeError("fixture backend: cannot load in a worker process")
        super().__init__()


class SlowToStart(Misbehaving):
    """Slow to import and to load in a worker, or to load in the runner (see the module docstring)."""

    name = "slow-to-start"

    def __init__(self):
        if _in_worker():
            mark("worker-loading")
            time.sleep(float(os.environ.get("OPCONFORM_TEST_WORKER_LOAD", "0")))
        else:
            mark("runner-loading")
            time.sleep(float(os.environ.get("OPCONFORM_TEST_RUNNER_LOAD", "0")))
        super().__init__()


class _OutOfMemory(list):
    def __iter__(self):
        raise MemoryError
