"""The process the runner starts for a worker: it takes a session of its own, becomes a child subreaper, and
forks the worker proper (runners/worker_process.py), then waits; when the worker ends it kills everything the
worker started, and ends as the worker did.

A process group kill (what the runner did alone before) misses a child that called setsid(): it has left the
group, and once its parent is dead it belongs to init, where nobody can tell it came from the backend. Here
every descendant of the worker stays below this process (PR_SET_CHILD_SUBREAPER: an orphan is reparented to
the nearest subreaper among its ancestors, this one), so it can find them all (/proc/<pid>/task/*/children,
recursively) and SIGKILL them, until it has no child left. It does so when

  - the worker ends (a crash, an exit, the end the runner asked of it): then it ends as the worker did (the
    same exit code, or killed by the same signal), so that the runner reads the worker's end from this process;
  - the runner closes its end of the control pipe (a timeout, close(), the runner's death: the pipe closes
    with the process, even after SIGKILL) or sends SIGTERM (multiprocessing's terminate at the runner's exit).

This process is the one the runner knows (its pid, its pidfd, its process group): the runner's fallback, a
SIGKILL to the group, would leave setsid()'d children alive, so the runner asks first (runners/worker.py).
The worker dies with this process (PR_SET_PDEATHSIG). The module imports nothing heavy: it forks before
numpy and the backend are loaded (the worker imports them), so the fork copies one thread.

Without PR_SET_CHILD_SUBREAPER (not Linux, a kernel before 3.4) an orphan goes to init: what a descendant
forked and then left behind by exiting is not found, and the process group kill catches only those that kept
the group (no setsid()). Without os.fork the spawned process is the worker itself (group kill only).
"""

from __future__ import annotations

import os
import select
import signal
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_END_WITHIN = 10.0  # seconds to end the worker's descendants (one in uninterruptible sleep may never die)


def start(conn, control, backend_spec: str, options: dict[str, str] | None = None, memory: int | None = None,
          output: str | None = None, mode: tuple | None = None, warm: bool = False) -> None:
    """The target of the runner's spawned process. conn: the worker's pipe to the runner (the worker's alone);
    control: the read end of the runner's control pipe (EOF: end everything); mode: the RunMode's fields; the
    rest as runners.worker_process._serve takes them."""
    from runners import cancel

    signal.pthread_sigmask(signal.SIG_BLOCK, cancel.SIGNALS)  # (blocked already where the runner took them over)
    try:
        os.setsid()  # a session and group of its own: the terminal's signals go to the runner alone
    except OSError:  # already a group leader: cannot happen with spawn
        pass
    cancel.discard_pending()  # what reached us in the runner's group was the runner's (cancel.discard_pending)
    if output is not None:  # fds 1 and 2 to the worker's output file: nothing of ours reaches the terminal
        fd = os.open(output, os.O_WRONLY | os.O_APPEND)
        for target in (1, 2):
            os.dup2(fd, target)
        os.close(fd)
    if not hasattr(os, "fork"):
        cancel.in_worker()
        _worker(conn, control, (backend_spec, options, memory, output, mode, warm))
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # (a failure leaves the group kill: see the module docstring)
    me = os.getpid()
    child = os.fork()
    if child == 0:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != me:  # this process died in between: nobody would end the worker
            os._exit(1)
        cancel.in_worker()
        _worker(conn, control, (backend_spec, options, memory, output, mode, warm))
    conn.close()  # the worker's: its pipe closes when the worker dies
    status = _wait(child, control)
    end_all()
    _end_as(status)


def _worker(conn, control, args: tuple) -> None:
    """The worker proper; never returns (it does not go back into multiprocessing's bootstrap)."""
    code = 1
    try:
        control.close()
        from runners.input_modes import RunMode
        from runners.worker_process import _serve

        spec, options, memory, output, mode, warm = args
        _serve(conn, spec, options, memory, output, RunMode(*mode) if mode is not None else None, warm)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - its traceback goes to the output file, the runner reads it
        import traceback

        traceback.print_exc()
    finally:
        for stream in ("stdout", "stderr"):
            try:
                getattr(__import__("sys"), stream).flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _wait(child: int, control) -> int | None:
    """Until the worker ends (its wait status) or the runner says to end (None); orphans reaped meanwhile.
    SIGTERM stays blocked and is taken with its sender: only the runner's (multiprocessing's terminate() at
    its exit) ends this process; the backend's (the worker's parent is this process) is ignored, as the
    runner ignores it (runners/cancel.py)."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signo, frame: None)  # (the wake-up fd says it)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
    runner = os.getppid()
    while True:
        ready, _, _ = select.select([control, wake_r], [], [], 0.5)
        if wake_r in ready:
            os.read(wake_r, 256)
        status = _reap(child)
        if status is not None:
            return status
        if control in ready:  # the control pipe closed (or written to)
            return None
        while (info := signal.sigtimedwait([signal.SIGTERM], 0)) is not None:
            if info.si_pid == runner:
                return None


def _reap(child: int) -> int | None:
    """Reap every child that has ended; the worker's wait status if it is one of them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        if pid == child:
            found = status


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (children first), from /proc/<pid>/task/*/children; an empty list
    where /proc cannot tell."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = _children(p)
        out.extend(kids)
        todo.extend(kids)
    return out


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return kids
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(x) for x in f.read().split())
        except (OSError, ValueError):
            pass
    return kids


def end_all() -> None:
    """SIGKILL every descendant of this process and reap them, again until none is left (one forked while
    the others were killed is orphaned to this subreaper, and found the next round)."""
    me, deadline = os.getpid(), time.monotonic() + _END_WITHIN
    while time.monotonic() < deadline:
        for pid in descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return  # no child left: none below either (an orphan would have come to us)
        time.sleep(0.01)


def _end_as(status: int | None) -> None:
    """End this process as the worker ended (wait status), or with 0 when the runner asked."""
    code = 0 if status is None else os.waitstatus_to_exitcode(status)
    if code < 0:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        except (ImportError, ValueError, OSError):
            pass  # (a core file of this small process at worst)
        try:
            signal.signal(-code, signal.SIG_DFL)  # (SIGKILL's cannot be set: it is the default)
        except (OSError, ValueError):
            pass
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [-code])
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def _prctl(option: int, value: int) -> bool:
    """prctl(2) on Linux; False elsewhere or when it fails."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
