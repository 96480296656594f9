"""The worker process's side (runners/worker.py): started by its supervisor (runners/worker_supervisor.py) in
a session of its own, its output captured, under its memory cap, it loads the backend once and answers each
data set asked of it."""

from __future__ import annotations

import os
import sys

from runners.escape import printable
from runners.results import ERROR, Result
from runners.worker_limits import (_OUT_OF_MEMORY_EXIT, _OUTPUT_HEAD, MESSAGE_TAIL, OUTPUT_TAIL, _cap_memory,
                                   _one_line)


def _serve(conn, backend_spec: str, options: dict[str, str] | None = None, memory: int | None = None,
           output: str | None = None, mode=None, warm: bool = False) -> None:
    """The worker process: the loop below under the memory cap. A MemoryError that escapes it (the
    worker's own reading or sending) ends the worker with _OUT_OF_MEMORY_EXIT, charged to the data set
    it was on. output: the file the worker's fds 1 and 2 go to (the runner's; see runners/worker.py);
    warm: warm_up() before saying ready."""
    capture = _capture(output)
    _cap_memory(memory)
    try:
        _loop(conn, backend_spec, options, capture, mode, warm)
    except MemoryError:
        os._exit(_OUT_OF_MEMORY_EXIT)  # no clean-up: it may need the memory there is none of


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


_STATUS_FD: dict[int, int] = {}  # pid -> /proc/self/status opened once (held() is asked after every data set);
# by pid, as a forked child's copy of the descriptor would still show its parent


def held() -> int | None:
    """The bytes this process holds against its cap (VmData: what RLIMIT_DATA counts), None where unknown.
    The file is read again from its start each time (procfs makes it anew on each read)."""
    try:
        pid = os.getpid()
        if pid not in _STATUS_FD:
            _STATUS_FD[pid] = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
        text = os.pread(_STATUS_FD[pid], 1 << 16, 0)
        at = text.index(b"VmData:")
        return int(text[at + 7:text.index(b"\n", at)].split()[0]) << 10
    except (OSError, ValueError, IndexError):
        return None


def warm_up() -> None:
    """Load what a data set's verdict loads on first use: the diagnosis, and every family's references and
    fault models. The first item's clock starts when the worker says it is ready (runners/worker.py), so
    this is nobody's: 0.25 s on an idle machine, while the runner collects. It was the first failing item's
    of each family: on onnxruntime a Cast failure's first took 0.08 to 0.10 s without it, 0.02 to 0.03 s with
    it, the next one 0.01 s (idle 2-core machine; ten times that under load). A module that fails to import is
    left to the data set that needs it."""
    try:
        from generator import faults
        from generator.families import FAMILIES
        from runners import diagnose  # noqa: F401

        for family in FAMILIES:
            faults.module(family)
    except Exception:  # noqa: BLE001 - (see above)
        pass


def _loop(conn, backend_spec: str, options: dict[str, str] | None, capture: _Capture | None = None,
          mode=None, warm: bool = False) -> None:
    """Worker main loop: ("ready", None, held) once the backend is loaded, or ("failed", one line, held) if it
    cannot be; then (case_dir, [index, ...], tier) in; one answer per index, in order, each sent as soon as it
    is known: ("result", Result, held) or ("case-error", (path, problem), held), `held` the worker's
    memory after it (held()). mode: how each case's model is built (runners.input_modes.RunMode; None: fed)."""
    from generator.serialize import CaseError, read_case
    from runners.backends.registry import get_backend
    from runners.execute import PreparedCache, describe_exception, run_case_dataset
    from runners.input_modes import DEFAULT

    import warnings

    # a backend's Python warnings (numpy's "overflow encountered in cast" on the inputs a suite is made of)
    # would go to the terminal of whoever runs the worker, between the runner's lines: the verdicts say it all
    warnings.simplefilter("ignore")
    try:
        backend = get_backend(backend_spec, options)
    except Exception as exc:  # noqa: BLE001 - reported once by the runner (WorkerDied), not as a traceback
        conn.send(("failed", _one_line(exc), held()))
        return
    if warm:
        warm_up()
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
                r = run_case_dataset(backend, case, index, tier, prepared, mode or DEFAULT)
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
