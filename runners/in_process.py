"""--isolation none: the backend runs in the runner's own process (to debug it with pdb, a profiler, prints).

Nothing then stands between the backend and the run. A segfault, an abort, a hang or a C-level exit() of the
backend ends the run where it is: no verdict, no summary, no results file (the previous one is removed when the
run starts), and the exit status is the backend's: exit(0) makes a green run that did not run. So:

  - a gate cannot use it: --isolation none with --baseline is refused (runners.run_options.check_isolation);
  - the run says so when it starts (before any item: what is left of a run that vanished) and in its summary;
  - an exit the backend asks of Python during an item (os._exit, sys.exit) does not end the run: it is that
    item's `crash`, as a worker's exit is with --isolation process, and the run goes on (judge()).
"""

from __future__ import annotations

import contextlib
import os
import threading

from runners.escape import printable

LINE = ("opconform: --isolation none: the backend runs in this process: a crash, a hang or an exit of it ends the "
        "run there, with no verdict, no summary and its own exit status (0 for exit(0)); gate with --isolation "
        "process")


class BackendExit(BaseException):
    """The backend asked, during an item, to end this process (str: what it called)."""


@contextlib.contextmanager
def exits_caught():
    """os._exit and sys.exit (SystemExit) during the block raise BackendExit instead. Only in this process's
    thread that entered it: a child the backend forked, or a thread of its own, still exits."""
    pid, thread, real = os.getpid(), threading.get_ident(), os._exit

    def _exit(code: int = 0) -> None:
        if os.getpid() == pid and threading.get_ident() == thread:
            raise BackendExit(f"called os._exit({code!r})")
        real(code)

    os._exit = _exit
    try:
        yield
    except SystemExit as exc:
        raise BackendExit(f"raised SystemExit({exc.code!r}) (sys.exit)") from None
    finally:
        os._exit = real


def judge(core, item, more: list[int] = (), then=None):
    """The item's Result from core.judge (runners.session.RunCore) in this process; an exit the backend asked
    for is the item's crash."""
    from runners.results import CRASH

    try:
        with exits_caught():
            return core.judge(item, more, then)
    except BackendExit as exc:
        r = core.stub(item.case_dir, item.case_name, item.index)
        r.verdict, r.error = CRASH, str(exc)
        r.message = printable(f"{item.case_name}[{item.index}]: the backend {exc} (--isolation none: the run goes "
                              "on in this process; with --isolation process its worker would have died)")
        return r


class Announce:
    """pytest plugin (--isolation none): LINE when the session starts (-q too) and in the summary."""

    def pytest_sessionstart(self, session) -> None:
        self._say(session.config)

    def pytest_terminal_summary(self, terminalreporter, config) -> None:
        self._say(config)

    @staticmethod
    def _say(config) -> None:
        tr = config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr.write_line(LINE, yellow=True)
