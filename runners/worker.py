"""The isolated worker process that runs a backend (DESIGN.md, "Runners").

A backend under test can segfault, abort or hang. Each runner keeps one worker process that loads
the backend once and runs case after case (so start-up is paid once, not per case); the runner
waits for each answer at most `timeout` seconds. If the worker dies, that data set gets a `crash`
verdict naming the signal; if it runs past the timeout it is killed and the data set gets
`timeout`. Either way the next data set starts a fresh worker and the run goes on.

The worker is started with the "spawn" method: a fork of a process that already runs a backend's
thread pools is not safe. The backend is named by its spec (a registry name or module:attr) and its
options (--backend-option, a dict of str) and constructed inside the worker.

The worker runs under a memory cap (`memory` bytes, --case-memory; see DEFAULT_MEMORY). A data set that
runs out of memory there (the backend raised MemoryError or said it failed to allocate) gets `error`
with a message naming the cap, and the worker is restarted before the next data set: the verdict
definitions (DESIGN.md, "Verdicts") call a backend that raises where a result is required `error`, and
the process did not die (`crash` is a death by signal). A backend that leaks does not poison the
items after it.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import time
from collections import deque
from pathlib import Path

from runners.results import CRASH, ERROR, TIMEOUT, Result

try:
    import resource
except ImportError:  # not on Windows: there the worker runs without a memory cap
    resource = None

DEFAULT_TIMEOUT = 60.0
# The longest --case-timeout: the worker's pipe is polled with an int of milliseconds (at most 2**31 - 1 ms,
# 24.8 days; beyond it, or inf, poll raises OverflowError).
MAX_TIMEOUT = 1e6  # seconds, 11.6 days

# The worker's memory cap is RLIMIT_DATA (what can be written: heap, anonymous mappings, thread stacks), not
# RLIMIT_AS (all address space, also what is only reserved: 64 MiB malloc arenas, up to 8 per core, and
# library mappings). Measured on the committed suite (9936 cases, every data set, one worker, 2 cores; peaks,
# VmData sampled every 50 ms):
#                            VmPeak (RLIMIT_AS)  VmData (RLIMIT_DATA)  VmHWM (resident)  threads
#   onnxruntime 1.32.0          571 MiB              201 MiB               90 MiB           3
#   OpenVINO 2026.4.1           1.50 GiB             427 MiB              142 MiB          24
# 184 MiB of OpenVINO's VmData is thread stacks (8 MiB each); its reservations grow with the core count
# (arenas, threads), so an address-space cap that suits 2 cores can bite on 64. The suite runs the same under
# a cap of 512M (onnxruntime) and 1G (OpenVINO): no data set ran out of memory. The default leaves ~10x
# OpenVINO's peak (room for some 400 more threads) and stops a runaway case long before it takes a machine.
# A runaway allocation fails there as MemoryError (numpy, pybind11) or the runtime's "failed to allocate".
DEFAULT_MEMORY = 4 << 30
# The smallest cap taken: a worker that has loaded its backend and run one case has written 119 MiB
# (onnxruntime), 134 MiB (opconform), 167 MiB (OpenVINO); below this it can hardly start ("--case-memory 4" is a slip).
MIN_MEMORY = 256 << 20
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# What a backend says when an allocation fails (lower case): Python's MemoryError (and numpy's
# _ArrayMemoryError; pybind11 turns C++'s std::bad_alloc into it), C++'s bad_alloc, onnxruntime's BFC arena
# ("Failed to allocate memory for requested buffer") and OpenVINO's CPU plugin ("Failed to allocate N bytes").
_OUT_OF_MEMORY = ("memoryerror", "bad_alloc", "failed to allocate")
# The worker's exit code when MemoryError escapes its own code (reading a case, handling the outputs,
# sending the answer): it says the worker ran out of memory, not that it crashed.
_OUT_OF_MEMORY_EXIT = 86

_CONTEXT = multiprocessing.get_context("spawn")


def check_timeout(seconds: float) -> float:
    """`seconds` as a float if it is a usable --case-timeout, else ValueError with one line (NaN, inf,
    <= 0, above MAX_TIMEOUT). The caller names the option."""
    if not seconds > 0:  # NaN too
        raise ValueError("must be a positive number of seconds")
    if not seconds <= MAX_TIMEOUT:
        raise ValueError(f"must be at most {MAX_TIMEOUT:.0f} seconds ({MAX_TIMEOUT / 86400:.1f} days)")
    return float(seconds)


def parse_size(text: str) -> int | None:
    """Bytes from a --case-memory size: "4G", "512M", "1.5G", "65536K", "4294967296" (K, M, G, T are powers
    of 1024, any case, an optional trailing B), or None for "none" (no cap). ValueError with one line
    otherwise; the caller names the option."""
    t = text.strip().upper()
    if t == "NONE":
        return None
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)I?B?", t)
    if m is None:
        raise ValueError("not a size: give bytes with an optional K, M, G or T (powers of 1024), e.g. 4G or "
                         "512M, or none for no cap")
    size = int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])
    if size < MIN_MEMORY:
        raise ValueError(f"at least {format_size(MIN_MEMORY)} (a worker with its backend loaded writes 120M to 170M)")
    if size > 1 << 62:  # setrlimit takes a 64-bit value
        raise ValueError("too large (give none for no cap)")
    return size


def format_size(size: int | None) -> str:
    """"4G", "512M", "1.5G", ... (what parse_size reads back); "none" for None."""
    if size is None:
        return "none"
    for unit in "TGMK":
        if size >= _SIZE_UNITS[unit]:
            return f"{size / _SIZE_UNITS[unit]:.4g}{unit}"
    return str(size)


def _cap_memory(memory: int | None) -> None:
    """Cap the worker's writable memory (RLIMIT_DATA, see DEFAULT_MEMORY): soft limit only, never above
    the hard limit the worker was given."""
    if memory is None or resource is None:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        memory = min(memory, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (memory, hard))


def _says_out_of_memory(text: str) -> bool:
    return any(m in text.lower() for m in _OUT_OF_MEMORY)


def _ran_out_of_memory(r: Result) -> bool:
    """True when the data set ended because an allocation failed (the backend's words, _OUT_OF_MEMORY)."""
    return _says_out_of_memory(f"{r.error or ''} {r.message}")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _serve(conn, backend_spec: str, options: dict[str, str] | None = None, memory: int | None = None) -> None:
    """The worker process: the loop below under the memory cap. A MemoryError that escapes it (the
    worker's own reading or sending) ends the worker with _OUT_OF_MEMORY_EXIT, charged to the data set
    it was on."""
    _cap_memory(memory)
    try:
        _loop(conn, backend_spec, options)
    except MemoryError:
        os._exit(_OUT_OF_MEMORY_EXIT)  # no clean-up: it may need the memory there is none of


def _loop(conn, backend_spec: str, options: dict[str, str] | None) -> None:
    """Worker main loop: ("ready", None) once the backend is loaded, or ("failed", one line) if it cannot
    be; then (case_dir, [index, ...], tier) in; one answer per index, in order, each sent as soon as it is
    known: ("result", Result) or ("case-error", (path, problem))."""
    from generator.serialize import CaseError, read_case
    from runners.backends.registry import get_backend
    from runners.execute import PreparedCache, run_case_dataset

    import warnings

    # a backend's Python warnings (numpy's "overflow encountered in cast" on the inputs a suite is made of)
    # would go to the terminal of whoever runs the worker, between the runner's lines: the verdicts say it all
    warnings.simplefilter("ignore")
    try:
        backend = get_backend(backend_spec, options)
    except Exception as exc:  # noqa: BLE001 - reported once by the runner (WorkerDied), not as a traceback
        conn.send(("failed", _one_line(exc)))
        return
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
    """The worker could not even start (the backend failed to load there). One line; raised again by every
    later run without a new attempt (it would fail the same way)."""


class IsolatedRunner:
    """Runs data sets of cases on a backend in a worker process that is restarted after a death.

    timeout: seconds one data set may take (check_timeout; ValueError otherwise); memory: the worker's cap
    in bytes (parse_size; None for no cap); options: the backend's --backend-option dict, handed to
    get_backend in the worker."""

    def __init__(self, backend_spec: str, timeout: float = DEFAULT_TIMEOUT, *, memory: int | None = DEFAULT_MEMORY,
                 options: dict[str, str] | None = None, startup_timeout: float = 300.0):
        self.backend_spec = backend_spec
        self.timeout = check_timeout(timeout)
        self.memory = memory
        self.options = dict(options) if options else None  # plain and picklable for the spawned worker
        self.startup_timeout = startup_timeout
        self._failed: str | None = None  # why the backend could not load in the worker (WorkerDied)
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
        proc = _CONTEXT.Process(target=_serve, args=(child, self.backend_spec, self.options, self.memory),
                                daemon=True, name="opconform-worker")
        proc.start()
        child.close()
        self._proc, self._conn, self._ready_seen = proc, parent, False
        self.starts += 1

    def _start(self) -> None:
        """Launch the worker if it is not running, and wait until it has loaded the backend."""
        if self._failed is not None:
            raise WorkerDied(self._failed)
        self.launch()
        if self._ready_seen:
            return
        parent = self._conn
        if not parent.poll(self.startup_timeout):
            self._kill()
            self._give_up(f"the worker did not start within {self.startup_timeout:g} s")
        try:
            what, text = parent.recv()
        except EOFError:
            code = self._reap()
            if code == _OUT_OF_MEMORY_EXIT:
                self._give_up(f"the worker ran out of memory loading the backend ({self._cap()})")
            self._give_up(f"the worker died while loading the backend ({describe_exit(code)})")
        if what == "failed":
            self._kill()
            oom = f" (out of memory: {self._cap()})" if _says_out_of_memory(text) else ""
            self._give_up(f"the backend cannot be loaded in the worker: {text}{oom}")
        self._ready_seen = True

    def _give_up(self, why: str):
        """Raise WorkerDied(why), now and for every later run."""
        self._failed = why
        raise WorkerDied(why) from None

    def _cap(self) -> str:
        return f"--case-memory {format_size(self.memory)}"

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
                answer = self._ready[key] = self._conn.recv()
                self._inflight.popleft()
                self._since = time.perf_counter()
                if answer[0] == "result" and _ran_out_of_memory(answer[1]):
                    self._out_of_memory(answer[1])
                return True
        except (EOFError, OSError, BrokenPipeError):
            code = self._reap()
            if code == _OUT_OF_MEMORY_EXIT:
                self._fail(key, ERROR, f"out of memory ({self._cap()}) in "
                                       "opconform's own code (reading the case, handling or sending the outputs); "
                                       "the run goes on in a new worker", "MemoryError")
                return None
            self._fail(key, CRASH,
                       f"the backend's worker process died ({describe_exit(code)}); the run goes on in a new worker"
                       + self._abort_hint(code), describe_exit(code))
            return None
        self._kill()
        self._fail(key, TIMEOUT, f"no answer within {self.timeout:g} s (--case-timeout); the worker was "
                                 "killed and the run goes on in a new one", None)
        return None

    def _out_of_memory(self, r: Result) -> None:
        """A data set that ran out of memory: `error` naming the cap (a probe only records it), and a fresh
        worker for what comes next (what this one still owed is asked of the new one)."""
        label = f"{r.case}[{r.dataset}]"
        if r.kind != "probe":
            r.verdict = ERROR  # also a negative case's: failing to allocate is not refusing the model
        what = r.error if _says_out_of_memory(r.error or "") else r.message.removeprefix(f"{label}: ")
        r.message = (f"{label}: out of memory ({self._cap()}): {what}; "
                     "the worker was restarted")
        self._kill()

    def _abort_hint(self, code: int | None) -> str:
        """Why an abort may be the memory cap's doing (a C++ backend's uncaught std::bad_alloc aborts)."""
        if self.memory is None or code != -signal.SIGABRT:
            return ""
        return f" (it ran under {self._cap()}: an allocation that fails there can end in an abort)"

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
