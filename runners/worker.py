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
items after it. The worker reports what it holds (VmData) after loading the backend and after each data set:
the message of a data set that ran out of memory says how much the worker held before it started, and when
that growth came from earlier items (the item that hits the cap of a leaking backend is not the culprit).

Nothing a backend starts outlives its worker, and a dead worker is seen by its process, not its pipe: the
worker makes itself a process group and session leader, the runner waits on the pipe and on the process
(a forked child can keep the pipe open after the worker died: that is a crash, not a timeout), and kills
the whole group on death, timeout and close (and the worker dies with the runner's thread that started it,
PR_SET_PDEATHSIG). A backend cannot signal the runner: see runners/cancel.py.

The backend's output is attributed: the worker's fds 1 and 2 go to a file of its own; after each data set
the worker keeps the last OUTPUT_TAIL bytes in the Result (`output`, and the message of a failing verdict)
and empties the file; on a crash or timeout the runner reads what the data set wrote. Nothing a backend
writes reaches the runner's terminal.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from multiprocessing.connection import wait as _wait_for
from pathlib import Path

from runners import cancel
from runners.escape import printable
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
# The backend's output (fds 1 and 2 of the worker) kept per data set: the last OUTPUT_TAIL bytes in the
# record, the last MESSAGE_TAIL in the message of a failing verdict.
OUTPUT_TAIL = 4096
MESSAGE_TAIL = 1024
_OUTPUT_HEAD = "\nthe backend wrote "  # starts the part of a message that shows the output

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


def _starved(text: str) -> bool:
    """Whether a worker's last words say it ran out of memory before opconform's own handler was in place:
    Python's start-up (the spawn bootstrap compiling a module where no .pyc exists yet, as in a fresh clone)
    raises MemoryError there, or, when compile() itself cannot allocate, SystemError "returned NULL without
    setting an exception", and the process exits 1."""
    return _says_out_of_memory(text) or "returned NULL without setting an exception" in text


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _serve(conn, backend_spec: str, options: dict[str, str] | None = None, memory: int | None = None,
           output: str | None = None, guard: bool = False, mode=None) -> None:
    """The worker process: the loop below under the memory cap. A MemoryError that escapes it (the
    worker's own reading or sending) ends the worker with _OUT_OF_MEMORY_EXIT, charged to the data set
    it was on.

    output: the file the worker's fds 1 and 2 go to (the runner's; see the module docstring); guard: die
    with the runner's thread that started this worker (that thread is the runner's main thread)."""
    _detach(guard)
    capture = _capture(output)
    _cap_memory(memory)
    try:
        _loop(conn, backend_spec, options, capture, mode)
    except MemoryError:
        os._exit(_OUT_OF_MEMORY_EXIT)  # no clean-up: it may need the memory there is none of


def _detach(guard: bool) -> None:
    """A process group and session of its own (the runner kills the group: the backend's children too;
    a terminal's Ctrl-C or hang-up goes to the runner, which ends the worker itself), the signals the
    runner blocks unblocked (masks are inherited), and death with the runner."""
    try:
        os.setsid()
    except OSError:  # already a group leader: cannot happen with spawn
        pass
    cancel.in_worker()
    if guard and sys.platform.startswith("linux"):
        try:
            import ctypes

            parent = os.getppid()
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:  # the runner died before that: nobody would ever kill this worker
                os._exit(1)
        except (OSError, AttributeError):
            pass


class _Capture:
    """The worker's fds 1 and 2, redirected to a file the runner names; what a data set wrote is taken
    (its tail kept) and the file emptied after each."""

    def __init__(self, fd: int):
        self.fd = fd
        try:
            import ctypes

            self._fflush = ctypes.CDLL(None).fflush  # C stdio buffers (a backend's printf) go out too
        except (OSError, AttributeError):
            self._fflush = None

    def take(self) -> tuple[bytes, int]:
        """(the last OUTPUT_TAIL bytes written since the last take, how many bytes were written); the file
        is emptied."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        if self._fflush is not None:
            self._fflush(None)
        size = os.fstat(self.fd).st_size
        if size == 0:
            return b"", 0
        keep = min(size, OUTPUT_TAIL)
        tail = os.pread(self.fd, keep, size - keep)
        os.ftruncate(self.fd, 0)
        return tail, size


def _capture(path: str | None) -> _Capture | None:
    if path is None:
        return None
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
    for target in (1, 2):
        os.dup2(fd, target)
    return _Capture(fd)


def output_text(tail: bytes, total: int) -> str:
    """The record's `output`: the tail as text, saying how much came before it."""
    text = tail.decode("utf-8", errors="replace")
    if total > len(tail):
        text = f"[{total - len(tail)} earlier bytes not kept]\n" + text
    return text


def attach_output(r: Result, tail: bytes, total: int) -> None:
    """What the backend wrote during data set r: its tail in the record, and in the message of a failing
    verdict (escaped: it is the backend's text)."""
    if total == 0:
        return
    r.output = output_text(tail, total)
    if r.failed:
        shown = tail[-MESSAGE_TAIL:]
        part = "" if total == len(shown) else f" (the last {len(shown)} shown)"
        r.message += (f"{_OUTPUT_HEAD}{total} bytes to stdout / stderr{part}:\n"
                      + printable(shown.decode("utf-8", errors="replace"), newlines=True))


def held() -> int | None:
    """The bytes this process holds against its cap (VmData: what RLIMIT_DATA counts), None where unknown."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmData:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return None


def _loop(conn, backend_spec: str, options: dict[str, str] | None, capture: _Capture | None = None,
          mode=None) -> None:
    """Worker main loop: ("ready", None, held) once the backend is loaded, or ("failed", one line, held) if it
    cannot be; then (case_dir, [index, ...], tier) in; one answer per index, in order, each sent as soon as it
    is known: ("result", Result, held) or ("case-error", (path, problem), held), `held` the worker's
    memory after it (held()). mode: how each case's model is built (runners.input_modes.RunMode; None: fed)."""
    from generator.serialize import CaseError, read_case
    from runners.backends.registry import get_backend
    from runners.execute import PreparedCache, describe_exception, run_case_dataset
    from runners.input_modes import FED

    import warnings

    # a backend's Python warnings (numpy's "overflow encountered in cast" on the inputs a suite is made of)
    # would go to the terminal of whoever runs the worker, between the runner's lines: the verdicts say it all
    warnings.simplefilter("ignore")
    try:
        backend = get_backend(backend_spec, options)
    except Exception as exc:  # noqa: BLE001 - reported once by the runner (WorkerDied), not as a traceback
        conn.send(("failed", _one_line(exc), held()))
        return
    if capture is not None:
        capture.take()  # what loading the backend wrote is no data set's
    prepared = PreparedCache()
    cases: dict = {}
    conn.send(("ready", None, held()))
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
                if capture is not None:
                    capture.take()
                conn.send(("case-error", (str(case.path), case.problem), held()))
                continue
            try:
                r = run_case_dataset(backend, case, index, tier, prepared, mode or FED)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - run_case_dataset gives every outcome a verdict; an escape is our bug
                r = Result(case=case.name, dataset=index, kind=case.kind, verdict=ERROR, backend=str(backend_spec),
                           backend_version="unknown", tier=tier,
                           message=f"{case.name}[{index}]: opconform's own code raised {describe_exception(exc)} "
                                   "(an opconform bug, not the backend's)")
            if capture is not None:
                attach_output(r, *capture.take())
            conn.send(("result", r, held()))


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
    get_backend in the worker; mode: how each case's model is built (runners.input_modes.RunMode)."""

    def __init__(self, backend_spec: str, timeout: float = DEFAULT_TIMEOUT, *, memory: int | None = DEFAULT_MEMORY,
                 options: dict[str, str] | None = None, startup_timeout: float = 300.0, mode=None):
        self.backend_spec = backend_spec
        self.mode = mode  # runners.input_modes.RunMode (picklable), None for the default
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
        self._output: str | None = None  # the file the worker's fds 1 and 2 go to, until the worker has opened it
        self._output_fd: int | None = None  # the runner's own descriptor of that file (read after a death)
        self._pidfd: int | None = None  # the worker's pidfd (Linux): readable once it has died
        self._held_fresh: int | None = None  # what the worker held once it had loaded the backend (held())
        self._held: int | None = None  # what it held after the last answer read: before the data set owed first
        self._died_output: tuple[bytes, int] = (b"", 0)  # what the worker wrote before the death just reaped
        self.starts = 0  # how many workers were started (tests check start-up is not per case)

    # ---- process management ----------------------------------------------------------
    def launch(self) -> None:
        """Start the worker without waiting for it: it loads the backend while the caller goes on (the
        first run waits for it to be ready)."""
        if self._proc is not None:
            return
        parent, child = _CONTEXT.Pipe()
        fd, output = tempfile.mkstemp(prefix="opconform-worker-", suffix=".out")
        guard = threading.current_thread() is threading.main_thread()
        proc = _CONTEXT.Process(target=_serve, args=(child, self.backend_spec, self.options, self.memory, output, guard,
                                                     self.mode),
                                daemon=True, name="opconform-worker")
        try:
            proc.start()
        except BaseException:
            Path(output).unlink(missing_ok=True)
            os.close(fd)
            raise
        cancel.add_worker(proc.pid)
        cancel.reblock()
        child.close()
        try:  # readable once the worker has died (its sentinel is a pipe, which a forked child keeps open)
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        self._proc, self._conn, self._ready_seen, self._output, self._output_fd = proc, parent, False, output, fd
        self._held_fresh = self._held = None
        self.starts += 1

    def _start(self) -> None:
        """Launch the worker if it is not running, and wait until it has loaded the backend."""
        if self._failed is not None:
            raise WorkerDied(self._failed)
        self.launch()
        if self._ready_seen:
            return
        parent = self._conn
        state = self._await(self.startup_timeout)
        if state is None:
            self._kill()
            self._give_up(f"the worker did not start within {self.startup_timeout:g} s{self._last_words()}")
        try:
            if state == "dead":
                raise EOFError
            what, text, self._held_fresh = parent.recv()
            self._held = self._held_fresh
            self._unlink_output()  # the worker has it open: no name left behind, whatever ends the runner
        except (EOFError, OSError):
            code = self._reap()
            words = self._last_words()
            if code == _OUT_OF_MEMORY_EXIT or (self.memory is not None and _starved(words)):
                self._give_up(f"the worker ran out of memory loading the backend ({self._cap()}){words}")
            self._give_up(f"the worker died while loading the backend ({describe_exit(code)}){words}")
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

    def _last_words(self) -> str:
        """"; its last output: ..." (one line) from what the worker wrote before the death just reaped."""
        tail, _ = self._died_output
        lines = [x for x in tail.decode("utf-8", errors="replace").splitlines() if x.strip()]
        return f"; its last output: {printable(lines[-1][-200:])}" if lines else ""

    def _await(self, timeout: float) -> str | None:
        """Wait for the worker: "answer" when its pipe has something to read, "dead" when it died with
        nothing more sent (seen by the process: a child it forked may hold the pipe open), None when
        `timeout` passed. A dead worker's group is killed before its pipe is read, so a read cannot block."""
        conn = self._conn
        ready = self._wait_death(timeout, conn)
        if ready is None:
            return None
        if ready == "dead":
            self._kill_group()
            return "answer" if conn.poll(0) else "dead"
        return "answer"

    def _wait_death(self, timeout: float, conn=None) -> str | None:
        """Wait until the worker dies ("dead") or `conn` has something to read ("answer"); None after
        `timeout`. The worker's death is seen by its pidfd, or (without one) by polling it every 0.2 s. The
        wait is cut in slices of a second: a signal another thread took still ends the run (runners/cancel.py)
        within one."""
        deadline = time.monotonic() + timeout
        if self._pidfd is not None:
            while True:
                left = deadline - time.monotonic()
                ready = _wait_for([c for c in (conn, self._pidfd) if c is not None], max(0.0, min(1.0, left)))
                if ready:
                    return "dead" if self._pidfd in ready else "answer"
                if left <= 1.0:
                    return None
        while True:
            if self._exited():
                return "dead"
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if conn is not None:
                if _wait_for([conn], min(0.2, left)):
                    return "answer"
            else:
                time.sleep(min(0.2, left))

    def _exited(self) -> bool:
        """Whether the worker has ended (without reaping it: its pid stays its group's id until _reap)."""
        try:
            return os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # reaped already
            return True
        except (AttributeError, OSError):
            return not self._proc.is_alive()

    def _kill_group(self) -> None:
        """SIGKILL the worker's process group (the worker made it: setsid), and the worker. Only while the
        worker is not reaped (its pid, the group's id, cannot have been reused)."""
        proc = self._proc
        if proc is None or proc.pid is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:  # no such group (it has ended, or the worker had not made it yet)
            pass
        if proc.is_alive():
            proc.kill()

    def _reap(self, grace: float = 5.0) -> int | None:
        """Drop the worker: its group killed, the process reaped, what it wrote since its last answer
        kept in _died_output; its exit code. grace: seconds it may take to end on its own first (its pipe
        closes before it has exited: the exit code says how it ended)."""
        proc = self._proc
        if proc is not None and grace > 0 and not self._exited():
            self._wait_death(grace)
        self._kill_group()
        self._proc = self._conn = None
        self._inflight.clear()
        self._died_output = _read_tail(self._output_fd)
        if self._output_fd is not None:
            os.close(self._output_fd)
            self._output_fd = None
        self._unlink_output()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if proc is None:
            return None
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        cancel.drop_worker(proc.pid)
        return proc.exitcode

    def _kill(self) -> None:
        self._reap(grace=0)

    def _unlink_output(self) -> None:
        if self._output is not None:
            Path(self._output).unlink(missing_ok=True)
            self._output = None

    def close(self) -> None:
        """Stop the worker (at the end of a session): asked to end when it owes nothing and the run was not
        cancelled, else at once; its process group is killed either way (nothing it started outlives it)."""
        if self._conn is not None and not self._inflight and cancel.cancelled() is None:
            try:
                self._conn.send(None)
                self._wait_death(5)
            except (OSError, BrokenPipeError):
                pass
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
            state = self._await(self.timeout)
            if state == "answer":
                what, payload, held_after = self._conn.recv()
                before, self._held = self._held, held_after
                self._ready[key] = (what, payload)
                self._inflight.popleft()
                self._since = time.perf_counter()
                if what == "result" and _ran_out_of_memory(payload):
                    self._out_of_memory(payload, before)
                return True
            if state == "dead":
                raise EOFError
        except (EOFError, OSError, BrokenPipeError):
            before = self._held
            code = self._reap()
            if code == _OUT_OF_MEMORY_EXIT:
                self._fail(key, ERROR, f"out of memory ({self._cap()}) in "
                                       "opconform's own code (reading the case, handling or sending the outputs); "
                                       "the run goes on in a new worker" + self._held_text(before), "MemoryError")
                return None
            self._fail(key, CRASH,
                       f"the backend's worker process died ({describe_exit(code)}); the run goes on in a new worker"
                       + self._abort_hint(code, before), describe_exit(code))
            return None
        self._kill()
        self._fail(key, TIMEOUT, f"no answer within {self.timeout:g} s (--case-timeout); the worker was "
                                 "killed and the run goes on in a new one", None)
        return None

    def _out_of_memory(self, r: Result, before: int | None = None) -> None:
        """A data set that ran out of memory: `error` naming the cap (a probe only records it), and a fresh
        worker for what comes next (what this one still owed is asked of the new one). before: what the
        worker held before the data set started (said, with where the growth came from)."""
        label = f"{r.case}[{r.dataset}]"
        if r.kind != "probe":
            r.verdict = ERROR  # also a negative case's: failing to allocate is not refusing the model
        message, sep, output = r.message.partition(_OUTPUT_HEAD)  # the backend's output stays last
        what = r.error if _says_out_of_memory(r.error or "") else message.removeprefix(f"{label}: ")
        r.message = (f"{label}: out of memory ({self._cap()}): {what}; "
                     "the worker was restarted" + self._held_text(before) + sep + output)
        if before is not None:
            r.worker_memory = before
        self._kill()

    def _held_text(self, before: int | None) -> str:
        """"; the worker held N MiB before this item started ..." (empty without a cap or a measure): where
        the worker's growth came from, for the item that hit the cap."""
        fresh, cap = self._held_fresh, self.memory
        if before is None or cap is None:
            return ""
        mib = lambda n: f"{n / (1 << 20):.0f} MiB"  # noqa: E731
        text = f"; the worker held {mib(before)} before this item started (of the {format_size(cap)} cap"
        if fresh is None:
            return text + ")"
        text += f"; {mib(fresh)} once it had loaded the backend)"
        grown = before - fresh
        if grown > max(16 << 20, (cap - fresh) // 4):
            text += (f": the growth of {mib(grown)} came from earlier items, not from this one "
                     "(on a fresh worker it may pass)")
        return text

    def _abort_hint(self, code: int | None, before: int | None = None) -> str:
        """Why an abort may be the memory cap's doing (a C++ backend's uncaught std::bad_alloc aborts)."""
        if self.memory is None or code != -signal.SIGABRT:
            return ""
        return (f" (it ran under {self._cap()}: an allocation that fails there can end in an abort)"
                + self._held_text(before))

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
        attach_output(r, *self._died_output)  # what the data set wrote before the death or the timeout
        self._ready[key] = ("result", r)


def _read_tail(fd: int | None) -> tuple[bytes, int]:
    """(the last OUTPUT_TAIL bytes of a worker's output file, its size); empty when there is none."""
    if fd is None:
        return b"", 0
    try:
        size = os.fstat(fd).st_size
        keep = min(size, OUTPUT_TAIL)
        return os.pread(fd, keep, size - keep), size
    except OSError:
        return b"", 0
