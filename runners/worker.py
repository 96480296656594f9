"""The isolated worker process that runs a backend (DESIGN.md, "Runners").

A backend under test can segfault, abort or hang. Each runner keeps one worker process that loads
the backend once and runs case after case (so start-up is paid once, not per case); the runner
waits for each answer at most `timeout` seconds. If the worker dies, that data set gets a `crash`
verdict naming the signal; if it runs past the timeout it is killed and the data set gets
`timeout`. Either way the next data set starts a fresh worker and the run goes on.

The worker is started with the "spawn" method: a fork of a process that already runs a backend's
thread pools is not safe. The backend is named by its spec (a registry name or module:attr) and
constructed inside the worker.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections import deque
from pathlib import Path

from runners.results import CRASH, TIMEOUT, Result

DEFAULT_TIMEOUT = 60.0
_CONTEXT = multiprocessing.get_context("spawn")


def _serve(conn, backend_spec: str) -> None:
    """Worker main loop: (case_dir, [index, ...], tier) in; one answer per index, in order, each sent as
    soon as it is known: ("result", Result) or ("case-error", (path, problem))."""
    from generator.serialize import CaseError, read_case
    from runners.backends.registry import get_backend
    from runners.execute import PreparedCache, run_case_dataset

    backend = get_backend(backend_spec)
    prepared = PreparedCache()
    cases: dict = {}
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        case_dir, indices, tier = request
        key = str(case_dir)
        if key not in cases:
            cases.clear()  # runners go case by case: keep only the current one
            try:
                cases[key] = read_case(case_dir)
            except CaseError as exc:
                cases[key] = exc
        case = cases[key]
        for index in indices:
            if isinstance(case, CaseError):
                conn.send(("case-error", (str(case.path), case.problem)))
            else:
                conn.send(("result", run_case_dataset(backend, case, index, tier, prepared)))


def describe_exit(exitcode: int | None) -> str:
    """'signal SIGSEGV (11)' for a death by signal, else 'exit code N'."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"signal {name} ({-exitcode})"
    return f"exit code {exitcode}"


class WorkerDied(Exception):
    """The worker could not even start (the backend failed to load there)."""


class IsolatedRunner:
    """Runs data sets of cases on a backend in a worker process that is restarted after a death."""

    def __init__(self, backend_spec: str, timeout: float = DEFAULT_TIMEOUT, startup_timeout: float = 300.0):
        self.backend_spec = backend_spec
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self._proc = None
        self._conn = None
        self._inflight: deque = deque()  # (case dir, index, tier) the worker owes an answer for, in order
        self._ready: dict = {}  # answers received, not yet asked for
        self._stubs: dict = {}  # case dir -> stub(i) of the last request for it (crash / timeout records)
        self._since = 0.0  # when the worker started on the data set it owes first
        self._ready_seen = False  # the worker said it has loaded the backend
        self.starts = 0  # how many workers were started (tests check start-up is not per case)

    # ---- process management ----------------------------------------------------------
    def launch(self) -> None:
        """Start the worker without waiting for it: it loads the backend while the caller goes on (the
        first run waits for it to be ready)."""
        if self._proc is not None:
            return
        parent, child = _CONTEXT.Pipe()
        proc = _CONTEXT.Process(target=_serve, args=(child, self.backend_spec), daemon=True,
                                name="opconform-worker")
        proc.start()
        child.close()
        self._proc, self._conn, self._ready_seen = proc, parent, False
        self.starts += 1

    def _start(self) -> None:
        """Launch the worker if it is not running, and wait until it has loaded the backend."""
        self.launch()
        if self._ready_seen:
            return
        parent = self._conn
        if not parent.poll(self.startup_timeout):
            self._kill()
            raise WorkerDied(f"the worker did not start within {self.startup_timeout:g} s")
        try:
            parent.recv()
        except EOFError:
            code = self._reap()
            raise WorkerDied(f"the worker died while loading the backend ({describe_exit(code)})") from None
        self._ready_seen = True

    def _reap(self) -> int | None:
        proc = self._proc
        self._proc = self._conn = None
        self._inflight.clear()
        if proc is None:
            return None
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        return proc.exitcode

    def _kill(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
        self._reap()

    def close(self) -> None:
        """Stop the worker (at the end of a session)."""
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        if self._proc is not None:
            self._proc.join(5)
        self._kill()

    # ---- running ---------------------------------------------------------------------
    def run(self, case_dir: Path, index: int, tier: str, stub, more: list[int] = (),
            then: tuple | None = None) -> tuple[str, object]:
        """("result", Result) | ("case-error", (path, problem)) for data set `index` of the case.

        stub(i): the record a crash or timeout of data set i fills in (the case's identity and backend).
        more: further data sets of the same case the caller will ask for next; then: (case_dir, indices,
        stub) of the case the caller will ask for after those. Both are requested now: the worker answers
        each data set as soon as it has it and goes straight on to the next, while the caller reports,
        and the answers wait here. A data set is still timed on its own, and a crash or hang is still
        charged to the data set it hit."""
        key = (str(case_dir), index, tier)
        if key not in self._ready and key not in self._inflight:
            self._drain()
            self._ready.clear()  # answers nobody asked for (the items did not run): do not keep them
            self._send(case_dir, [index, *[i for i in more if i != index]], tier, stub)
        if then is not None and then[1]:
            first = (str(then[0]), then[1][0], tier)
            if first not in self._ready and first not in self._inflight:
                self._send(then[0], then[1], tier, then[2])
        while key not in self._ready:
            if key not in self._inflight:  # the worker died or hung on an earlier data set: ask a fresh one
                self._send(case_dir, [index, *[i for i in more if i != index]], tier, stub)
            else:
                self._receive()
        return self._ready.pop(key)

    def _send(self, case_dir: Path, indices: list[int], tier: str, stub) -> None:
        for attempt in range(2):
            if self._proc is not None and not self._proc.is_alive():
                self._settle()
            self._start()
            if not self._inflight:
                self._since = time.perf_counter()
                self._stubs = {}
            try:
                self._conn.send((str(case_dir), indices, tier))
            except (OSError, BrokenPipeError):  # it died since: settle what it owed, then a fresh one
                if attempt:
                    raise
                self._settle()
                continue
            self._inflight.extend((str(case_dir), i, tier) for i in indices)
            self._stubs[str(case_dir)] = stub
            return

    def _settle(self) -> None:
        """A dead worker: read the answers it sent before dying, charge its death to the data set it was on
        (_receive does both), and drop it."""
        while self._inflight:
            self._receive()
        self._kill()

    def _drain(self) -> None:
        """Read what is still owed (the worker answers every index it was sent, in order)."""
        while self._inflight:
            self._receive()

    def _receive(self) -> bool | None:
        """Read the next answer owed into _ready. On a death or hang, the data set being run gets its
        crash / timeout record, the worker is dropped, and None is returned."""
        key = self._inflight[0]
        try:
            if self._conn.poll(self.timeout):
                self._ready[key] = self._conn.recv()
                self._inflight.popleft()
                self._since = time.perf_counter()
                return True
        except (EOFError, OSError, BrokenPipeError):
            code = self._reap()
            self._fail(key, CRASH,
                       f"the backend's worker process died ({describe_exit(code)}); the run goes on in a new worker",
                       describe_exit(code))
            return None
        self._kill()
        self._fail(key, TIMEOUT, f"no answer within {self.timeout:g} s (--case-timeout); the worker was "
                                 "killed and the run goes on in a new one", None)
        return None

    def _fail(self, key, verdict: str, text: str, error: str | None) -> None:
        self._inflight.clear()
        stub = self._stubs.get(key[0])
        if stub is None:
            return
        r = stub(key[1])
        r.verdict, r.duration = verdict, time.perf_counter() - self._since
        r.message = f"{r.case}[{key[1]}]: {text}"
        if error is not None:
            r.error = error
        self._ready[key] = ("result", r)
