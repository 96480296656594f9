"""SIGTERM and SIGHUP cancel a run as Ctrl-C does; the backend's worker cannot signal the runner.

CI systems (GitLab, Kubernetes, Jenkins) cancel a job with SIGTERM, terminals with SIGHUP. By default either
kills pytest on the spot: no results file, and the one of the previous run left in place looking new. Once
`install()`ed (the pytest plugin does it when it runs a backend, `opconform run` before anything starts a
thread), SIGTERM, SIGHUP and SIGINT all become a KeyboardInterrupt in the main thread: pytest ends the session
as on Ctrl-C (exit status 2, "interrupted"; runners/cancel_plugin.py), the plugin's pytest_sessionfinish writes
the results of the items that ran (atomically), and the workers end with everything they started.

A backend runs in a worker process (runners/worker.py) that can find the runner (its supervisor's parent)
and signal it. The runner tells a backend's signal from a real cancel by its sender: the three signals are
blocked in every thread and taken by one thread with sigtimedwait, which reads the sender's pid (si_pid). A
signal sent by a worker (`add_worker`) or by one of its descendants (same process group or session, or a
worker among its ancestors) is ignored and counted (`ignored()`; the run's summary says so). A sender that has
already exited and been reaped cannot be told apart and counts as a cancel. The wake-up is a real-time
signal to the main thread, which interrupts a blocking wait (EINTR) the way SIGINT does.

Signal masks are inherited across fork and exec: a worker drops what reached it while it was still in the
runner's process group and unblocks the three signals (`in_worker`). Where there is no sigtimedwait (not
Linux) SIGTERM and SIGHUP still become a KeyboardInterrupt, without the sender check.

A cancel can come at any moment; a KeyboardInterrupt is not raised where it would cut something that must
end whole. `defer()` ... `resume()` (or `with deferred():`) marks such a section: the runner's set-up (the
backend loading in this process, which has no results file to write yet), a worker's start (a spawn cut half
way leaves a worker that tracebacks): a cancel during it is raised at its end, and a second one at once (a
backend whose import hangs can still be left). `hold()` starts the run's end (its results file and baseline
written, its summary printed): from then on a cancel is only recorded, and the runner makes its exit status
and its results file's say 2.

Nothing outlives a cancel that the runner can see: `discard_stale` removes the previous results file when
the run starts, so a run killed outright (SIGKILL, the grace period after SIGTERM) leaves no file at all
rather than an old one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable

SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None), signal.SIGINT)
                if s is not None)
_CAN_WAIT = hasattr(signal, "sigtimedwait") and hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGRTMIN")
_WAKE = signal.SIGRTMIN + 5 if _CAN_WAIT else None  # to the main thread: "raise KeyboardInterrupt now"
_KEEP_DEAD = 30.0  # seconds a worker's pid is still known after it was reaped (its last signal may be queued)

_lock = threading.Lock()
_workers: dict[int, float | None] = {}  # worker pid (its own process group and session) -> when it was reaped
_enders: dict[int, Callable[[], None]] = {}  # worker pid -> how to end it at exit (kill_workers)
_state: dict = {}  # while installed: thread, stop, mask, handlers, main
_cancel: list[str] = []  # "SIGTERM from pid 123": what cancelled the run (the first one)
_ignored: list[str] = []  # "SIGTERM from pid 456 (the backend's worker 450)"
_told: list[bool] = []  # end_lines() has said the run was cancelled


def add_worker(pid: int, end: Callable[[], None] | None = None) -> None:
    """A worker process started with this pid (it makes itself a process group and session leader). end: how
    kill_workers ends it at exit (default: SIGKILL to its group and to it)."""
    with _lock:
        _workers[pid] = None
        if end is not None:
            _enders[pid] = end


def drop_worker(pid: int) -> None:
    """The worker was reaped: its pid is still recognised for _KEEP_DEAD seconds, then forgotten."""
    now = time.monotonic()
    with _lock:
        _enders.pop(pid, None)
        if pid in _workers:
            _workers[pid] = now
        for p, t in list(_workers.items()):
            if t is not None and now - t > _KEEP_DEAD:
                del _workers[p]


def live_workers() -> list[int]:
    with _lock:
        return [p for p, t in _workers.items() if t is None]


def discard_pending() -> None:
    """Drop the three signals pending in this process (blocked: the mask the runner had when it started it).
    A worker starts in the runner's process group and leaves it only once its spawn bootstrap has run: a
    terminal's Ctrl-C or hang-up (or a CI's SIGTERM to the group) that came in between was the runner's to
    act on, and unblocked it would end the worker with a KeyboardInterrupt traceback on the terminal."""
    if hasattr(signal, "sigtimedwait"):
        while signal.sigtimedwait(SIGNALS, 0) is not None:
            pass


def in_worker() -> None:
    """First thing in a worker process (once it has a session of its own): what reached it before dropped,
    and the signals the runner blocked unblocked and default again."""
    discard_pending()
    for s in SIGNALS:
        if s != signal.SIGINT:
            signal.signal(s, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


def cancelled() -> str | None:
    """What cancelled the run ("SIGTERM from pid 123"), None if nothing did."""
    return _cancel[0] if _cancel else None


def ignored() -> list[str]:
    """The signals a worker (or its descendants) sent this process, ignored."""
    return list(_ignored)


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, process group, session) of a process, None if there is none (Linux /proc)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = text.rsplit(")", 1)[-1].split()
    try:
        return int(fields[1]), int(fields[2]), int(fields[3])
    except (IndexError, ValueError):
        return None


def worker_of(pid: int) -> int | None:
    """The worker that `pid` is, or descends from (by process group, session or ancestry), else None."""
    if pid <= 0:
        return None
    with _lock:
        workers = set(_workers)
    if not workers:
        return None
    me, p = os.getpid(), pid
    for _ in range(64):
        if p in workers:
            return p
        st = _stat(p)
        if st is None:
            return None
        ppid, pgrp, sid = st
        for w in (pgrp, sid):
            if w in workers:
                return w
        if ppid <= 1 or ppid == me:
            return None
        p = ppid
    return None


def _name(signo: int) -> str:
    try:
        return signal.Signals(signo).name
    except ValueError:
        return f"signal {signo}"


def _take(signo: int, pid: int) -> None:
    """The waiting thread got `signo` from `pid`: ignore it (a worker's), or cancel the run."""
    worker = worker_of(pid)
    if worker is not None:
        who = "the backend's worker" if worker == pid else f"a process of the backend's worker {worker}"
        _ignored.append(f"{_name(signo)} from pid {pid} ({who})")
        return
    if _state.get("follower") and signo != signal.SIGINT:
        _ignored.append(f"{_name(signo)} from pid {pid} (an xdist worker leaves a cancel to its controller)")
        return
    sender = f"pid {pid}" if pid > 0 else "the kernel (terminal)"
    if _cancel and signo != signal.SIGINT:
        return  # cancelled already: the results are being written; a second Ctrl-C still interrupts
    _cancel.append(f"{_name(signo)} from {sender}")
    main = _state.get("main")
    if main is not None:
        signal.pthread_kill(main, _WAKE)


def _serve(stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            info = signal.sigtimedwait(SIGNALS, 0.25)
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for safety
            continue
        if info is not None:
            _take(info.si_signo, info.si_pid)


def _on_wake(signo, frame) -> None:
    """In the main thread, after the waiting thread decided on a cancel: raised unless held or deferred."""
    _raise_pending(again_only=True)


def _raise_pending(again_only: bool = False) -> None:
    """Raise the KeyboardInterrupt of a cancel not raised yet, unless hold() is on; inside a deferred section
    only a second cancel (again_only: the first waits for the section's end)."""
    raised = _state.get("pending", 0)
    if raised >= len(_cancel) or _state.get("final"):
        return
    if again_only and _state.get("depth") and len(_cancel) - raised < 2:
        return
    _state["pending"] = len(_cancel)
    raise KeyboardInterrupt(f"opconform: cancelled by {_cancel[-1]}")


def _main_thread() -> bool:
    return bool(_state) and threading.current_thread() is threading.main_thread()


def defer() -> None:
    """Until resume(): a cancel is recorded, and raised only at resume() (a second one is raised at once).
    Only in the main thread (the only one a cancel is raised in); sections nest."""
    if _main_thread():
        _state["depth"] = _state.get("depth", 0) + 1


def resume() -> None:
    """The end of a defer(): a cancel that came during it is raised now (KeyboardInterrupt)."""
    if _main_thread() and _state.get("depth"):
        _state["depth"] -= 1
        if not _state["depth"]:
            _raise_pending()


@contextlib.contextmanager
def deferred():
    """`with deferred():` a section no cancel cuts (defer / resume); the cancel is raised after it, unless the
    section raised."""
    defer()
    try:
        yield
    except BaseException:
        if _main_thread() and _state.get("depth"):
            _state["depth"] -= 1
        raise
    resume()


def hold() -> None:
    """The run is ending (its files being written, its summary printed): from now until uninstall() a cancel
    is recorded (cancelled()), never raised."""
    if _state:
        _state["final"] = True


def _on_signal(signo, frame) -> None:
    """Fallback (no sigtimedwait, or a thread that does not block the signals): a cancel, sender unknown.
    In a pytest-xdist worker (its execnet thread predates install() and takes these signals) it is ignored:
    the controller is the one that cancels, and it ends its workers."""
    if _state.get("follower") and signo != signal.SIGINT:
        _ignored.append(f"{_name(signo)} (sender unknown: an xdist worker leaves a cancel to its controller)")
        return
    if _cancel and signo != signal.SIGINT:
        return
    _cancel.append(f"{_name(signo)} (sender unknown)")
    _raise_pending(again_only=True)


def install(follower: bool = False) -> bool:
    """Turn SIGTERM / SIGHUP / SIGINT into a KeyboardInterrupt in the main thread, ignoring the workers'.
    Only from the main thread (else False); again while installed: nothing. follower: this is a pytest-xdist
    worker (see _on_signal)."""
    if _state:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    _cancel.clear()
    _ignored.clear()
    _told.clear()
    handlers = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        if s != signal.SIGINT or (not _CAN_WAIT and handlers[s] is signal.default_int_handler):
            signal.signal(s, _on_signal)  # (SIGINT too without sigtimedwait, so that defer() holds it; not
            # where it is ignored: a job started in the background of a script)
    _state.update(handlers=handlers, pending=0, follower=follower, depth=0, final=False)
    if _CAN_WAIT:
        _tracker()
        handlers[_WAKE] = signal.getsignal(_WAKE)
        signal.signal(_WAKE, _on_wake)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [_WAKE])
        stop = threading.Event()
        thread = threading.Thread(target=_serve, args=(stop,), name="opconform-signals", daemon=True)
        thread.start()
        _state.update(mask=mask, stop=stop, thread=thread, main=threading.main_thread().ident)
    return True


def _tracker() -> None:
    """Start multiprocessing's resource tracker now: starting it unblocks SIGINT and SIGTERM in the thread
    that does (multiprocessing.resource_tracker.ensure_running), which must not happen after install()."""
    try:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except Exception:  # noqa: BLE001 - reblock() after each worker start covers it
        pass


def reblock() -> None:
    """After starting a worker (multiprocessing may have unblocked SIGINT / SIGTERM in this thread, see
    _tracker): the signals blocked again where install() blocked them."""
    if "thread" in _state and threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)


def uninstall() -> None:
    """Back to the signal handling there was before install()."""
    if not _state:
        return
    if "thread" in _state:
        _state["stop"].set()
        _state["thread"].join(5)
        while True:  # signals queued since the thread stopped: taken here, not left to kill the process
            info = signal.sigtimedwait(SIGNALS, 0)
            if info is None:
                break
            worker = worker_of(info.si_pid)
            if worker is not None:
                _ignored.append(f"{_name(info.si_signo)} from pid {info.si_pid} (the backend's worker)")
            elif not _cancel:
                _cancel.append(f"{_name(info.si_signo)} from pid {info.si_pid} (after the session ended)")
        signal.pthread_sigmask(signal.SIG_SETMASK, _state["mask"])
    for s, h in _state["handlers"].items():
        signal.signal(s, h if h is not None else signal.SIG_DFL)
    _state.clear()


def kill_workers() -> None:
    """End every live worker (at exit: nothing a worker started outlives the run): by its own ender (a
    supervised worker ends everything it started, runners/worker_supervisor.py), else SIGKILL to its process
    group and to it (one that has not made its group yet is in the runner's)."""
    for pid in live_workers():
        with _lock:
            end = _enders.pop(pid, None)
        if end is not None:
            try:
                end()
                continue
            except Exception:  # noqa: BLE001 - at exit: fall back to the kill
                pass
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass


atexit.register(kill_workers)


def discard_stale(path: Path | str) -> None:
    """Remove the results file of an earlier run at `path` before this run starts (a run that cannot finish
    must not leave an old file that looks like its own). OSError when it cannot be removed."""
    from runners.results import RESULTS_FORMAT, document_format

    path = Path(path)
    if not path.is_symlink() and path.is_file() and document_format(path) == RESULTS_FORMAT:
        path.unlink()  # (a link is left for the plugin's check of the path to refuse)


def end_lines() -> list[tuple[str, str]]:
    """(line, colour) for the end of a run: that it was cancelled, and the signals the backend sent."""
    lines = []
    if cancelled():
        _told.append(True)
        lines.append((f"opconform: interrupted: the run was cancelled by {cancelled()}", "red"))
    seen = ignored()
    if seen:
        lines.append((f"opconform: ignored {len(seen)} signal(s) the backend sent to the runner: "
                      + "; ".join(seen[:5]) + (" ..." if len(seen) > 5 else ""), "yellow"))
    return lines


def settle(status: int, report: str | Path | None) -> int:
    """The exit status of a run that has ended (its files written, its summary printed): 2 when a cancel came
    (hold() kept it from cutting the writes), the header of the results file written (report, None if none)
    then saying 2 too, and the line saying so printed (on stderr) if the summary did not have it. A usage
    error (4) stays."""
    if not cancelled() or status in (2, 4):
        return status
    if report is not None:
        try:
            restamp(report, 2)
        except (OSError, ValueError) as exc:
            from runners.escape import printable

            print(printable(f"opconform: cannot mark {report} interrupted: {getattr(exc, 'strerror', None) or exc}"),
                  file=sys.stderr)
    if not _told:
        for line, _ in end_lines()[:1]:
            print(line, file=sys.stderr)
    return 2


def restamp(report: str | Path, exitstatus: int) -> None:
    """Set the results file's header "exitstatus" (atomically). The header is indented JSON whose records are
    one a line (runners.results.results_text), so its one line at indent 1 is the header's."""
    import re

    from runners.results import write_atomically

    path = Path(report)
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(r'(?m)^ "exitstatus": -?\d+,?$', lambda m: f' "exitstatus": {exitstatus}' +
                     ("," if m.group(0).endswith(",") else ""), text, count=1)
    if n != 1:
        raise ValueError("no exitstatus in its header")
    write_atomically(path, new)
