"""The isolated worker process that runs a backend (docs/design.md, "Runners").

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
definitions (docs/design.md, "Verdicts") call a backend that raises where a result is required `error`, and
the process did not die (`crash` is a death by signal). A backend that leaks does not poison the
items after it. The worker reports what it holds (VmData) after loading the backend and after each data set:
the message of a data set that ran out of memory says how much the worker held before it started, and when
that growth came from earlier items (the item that hits the cap of a leaking backend is not the culprit).

Nothing a backend starts outlives its worker, and a dead worker is seen by its process, not its pipe. The
process the runner starts is the worker's supervisor (runners/worker_supervisor.py): a session and process
group of its own, a child subreaper, it forks the worker and, when the worker ends or the runner closes the
control pipe (a timeout, close(), the runner's death), SIGKILLs every descendant, setsid()'d ones too, then
ends as the worker did. The runner waits on the pipe and on that process (a forked child can keep the pipe
open after the worker died: that is a crash, not a timeout); to end a worker it closes the control pipe and
waits for the supervisor (at most _END_GRACE), and only then kills the whole group. A backend cannot
signal the runner: see runners/cancel.py.

The first data set's clock starts once the worker has said it is ready: after it imported and loaded the
backend and loaded what a verdict loads on first use (worker_process.warm_up, on a runner's first worker,
while the runner collects), so none of it is charged to the first item. A timeout is not retried on a fresh
worker: that worker would start the same way again (a warm-up longer than --case-timeout would time out
twice), and every hang of a hanging backend would cost twice its timeout.

The backend's output is attributed: the worker's fds 1 and 2 go to a file of its own; after each data set
the worker keeps the last OUTPUT_TAIL bytes in the Result (`output`, and the message of a failing verdict)
and empties the file; on a crash or timeout the runner reads what the data set wrote. Nothing a backend
writes reaches the runner's terminal.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections import deque
from multiprocessing.connection import wait as _wait_for
from pathlib import Path

from runners import cancel
from runners.escape import printable
from runners.results import CRASH, ERROR, TIMEOUT, Result

# DEFAULT_MEMORY, parse_size, OUTPUT_TAIL: imported from here by runners/cli.py and tests/test_hostile_backends.py
from runners.worker_limits import (_OUT_OF_MEMORY_EXIT, _OUTPUT_HEAD, DEFAULT_MEMORY, DEFAULT_TIMEOUT,  # noqa: F401
                                   OUTPUT_TAIL, _ran_out_of_memory, _read_tail, _says_out_of_memory, _starved,
                                   check_timeout, describe_exit, format_size, parse_size)
from runners.worker_process import attach_output
from runners.worker_supervisor import start as _supervise

_CONTEXT = multiprocessing.get_context("spawn")
_END_GRACE = 5.0  # seconds the supervisor has to end a worker and what it started before the group is killed


class WorkerDied(Exception):
    """The worker could not even start (the backend failed to load there). One line; raised again by every
    later run without a new attempt (it would fail the same way)."""


class WorkerStopped(Exception):
    """stop() was called (the run is interrupted): no worker is started any more."""


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
        self._control = None  # the runner's end of the control pipe (closed: the supervisor ends everything)
        self._control_lock = threading.Lock()  # (stop() closes it from another thread)
        self._stopped = False
        self._busy = threading.Lock()  # held by the thread in run() (close() from another waits for it)
        self.starts = 0  # how many workers were started (tests check start-up is not per case)

    # ---- process management ----------------------------------------------------------
    def launch(self) -> None:
        """Start the worker without waiting for it: it loads the backend while the caller goes on (the
        first run waits for it to be ready). WorkerStopped after stop()."""
        if self._stopped:
            raise WorkerStopped("the run is interrupted")
        if self._proc is not None:
            return
        with cancel.deferred():  # a spawn cut half way leaves a worker that tracebacks on the terminal
            self._spawn()

    def _spawn(self) -> None:
        parent, child = _CONTEXT.Pipe()
        control, self_control = _CONTEXT.Pipe(duplex=False)
        fd, output = tempfile.mkstemp(prefix="opconform-worker-", suffix=".out")
        mode = None if self.mode is None else (self.mode.inputs, self.mode.shapes, self.mode.max_opset)
        proc = _CONTEXT.Process(target=_supervise, args=(child, control, self.backend_spec, self.options,
                                                         self.memory, output, mode, self.starts == 0),
                                daemon=True, name="opconform-worker")
        try:
            proc.start()
        except BaseException:
            Path(output).unlink(missing_ok=True)
            os.close(fd)
            self_control.close()
            raise
        finally:
            child.close()
            control.close()
        cancel.add_worker(proc.pid, end=self._close_control)
        cancel.reblock()
        try:  # readable once the worker has died (its sentinel is a pipe, which a forked child keeps open)
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        self._proc, self._conn, self._ready_seen, self._output, self._output_fd = proc, parent, False, output, fd
        self._control = self_control
        self._held_fresh = self._held = None
        self.starts += 1
        if self._stopped:  # stop() came while it started: it was not there to be ended
            self._close_control()

    def stop(self) -> None:
        """From any thread (an interrupted run): the worker ends with everything it started, and none is
        started again; the thread using this runner sees the worker's death (and then WorkerStopped)."""
        self._stopped = True
        self._close_control()

    def _close_control(self) -> None:
        with self._control_lock:
            control, self._control = self._control, None
        if control is not None:
            control.close()

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
        """SIGKILL the supervisor's process group (it made it: setsid), and the supervisor: a fallback, which
        leaves what called setsid() (see _reap). Only while it is not reaped (its pid, the group's id,
        cannot have been reused)."""
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
        """Drop the worker: ended with what it started, the process reaped, what it wrote since its last
        answer kept in _died_output; its exit code. grace: seconds it may take to end on its own first (its
        pipe closes before it has exited: the exit code says how it ended); then the supervisor is asked to
        end it (the control pipe closed) and given _END_GRACE, and only then is its group killed."""
        proc = self._proc
        if proc is not None and grace > 0 and not self._exited():
            self._wait_death(grace)
        if proc is not None and not self._exited():
            self._close_control()
            self._wait_death(_END_GRACE)
        self._close_control()
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
        cancelled, else at once; what it started ends with it either way. While another thread is in run()
        (an interrupted -j run), that thread's worker is stopped and the thread given 30 s to return."""
        if not self._busy.acquire(blocking=False):
            self.stop()
            if not self._busy.acquire(timeout=30):  # (stuck: its worker is ended all the same)
                self._close_control()
                return
        try:
            if self._conn is not None and not self._inflight and cancel.cancelled() is None:
                try:
                    self._conn.send(None)
                    self._wait_death(5)
                except (OSError, BrokenPipeError):
                    pass
            self._kill()
        finally:
            self._busy.release()

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
        with self._busy:
            return self._run(case_dir, index, tier, stub, more, then)

    def _run(self, case_dir: Path, index: int, tier: str, stub, more, then) -> tuple[str, object]:
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
