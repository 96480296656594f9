"""The pytest side of runners/cancel.py: where a cancel may be raised in a pytest session, and what it ends with.

A cancel becomes a KeyboardInterrupt, which pytest ends its session on (exit status 2, pytest_sessionfinish:
the results file written). Raised where pytest does not expect it, it ends pytest with a traceback or no
results file instead, so: none during pytest_configure (configure() defers it; raised when collection
starts, inside the session), and none once the session ends (hold() from the end of the test loop, or the
interrupt, on: the results file, the baseline and the summary are written whole). A cancel that came while they
were written makes the exit status 2 all the same (the run plugin rewrites its results file's header then).
pytest's own report of the interrupt (a banner, the file:line the KeyboardInterrupt was raised at, a hint about
--full-trace) becomes the one line of end_lines when the interrupt is a cancel.
"""

from __future__ import annotations

import sys

import pytest

from runners import cancel

RUN_PLUGIN = "opconform-run"  # runners.pytest_collect.PLUGIN_NAME (the run's plugin: whether it wrote results)


def configure(config, report: str | None) -> None:
    """From the pytest plugin's pytest_configure, first thing (threads started later, numpy's, inherit the
    blocked signals; one started earlier could take a worker's signal without its sender): the results file
    of an earlier run removed (not in an xdist worker: the controller writes it), the signals taken over,
    the summary and the clean-up registered (CancelPlugin). The rest of the configuration (the
    backend loading in this process: seconds) is deferred until collection starts: a KeyboardInterrupt out of
    pytest_configure ends pytest before its session, with no results file."""
    follower = hasattr(config, "workerinput")
    cancel.install(follower=follower)  # before anything imports numpy (runners.results does)
    cancel.defer()
    config.pluginmanager.register(CancelPlugin(), "opconform-cancel")
    if report and not follower:
        try:
            cancel.discard_stale(report)
        except OSError as exc:
            raise pytest.UsageError(f"--report {report}: cannot remove the results file of an earlier run "
                                    f"({exc.strerror or exc}): it would be left looking like this run's") from None


class CancelPlugin:
    """Registered by configure(): the deferred cancel raised at collection, hold() at the end, the
    summary line, and the signal handling undone at the end."""

    session = None

    def pytest_sessionstart(self, session) -> None:
        self.session = session

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection(self, session):
        cancel.resume()  # a cancel during the configuration: raised here, where pytest ends the session on it
        return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtestloop(self, session):
        try:
            return (yield)
        finally:
            cancel.hold()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session) -> None:
        cancel.hold()

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo) -> None:
        cancel.hold()

    def pytest_terminal_summary(self, terminalreporter, config) -> None:
        lines = cancel.end_lines()
        if lines and cancel.cancelled() and _retitle(terminalreporter, lines[0][0]):
            lines.pop(0)
        for line, colour in lines:
            terminalreporter.write_line(line, **{colour: True})

    def pytest_unconfigure(self, config) -> None:
        """A cancel that came while the session's files were written or its summary printed: exit status 2
        all the same, and the results file's header restamped (cancel.settle). One that ended pytest before
        its session (a second one during the configuration): pytest's banner says it, without the file:line."""
        if self.session is None and cancel.cancelled():
            line = cancel.end_lines()[0][0] + ", before the session started: nothing was run or written"
            if not _retitle(config.pluginmanager.get_plugin("terminalreporter"), line):
                print(line, file=sys.stderr)  # (no terminal reporter yet to print pytest's banner)
        session = self.session
        if session is not None and not hasattr(config, "workerinput"):
            run = config.pluginmanager.get_plugin(RUN_PLUGIN)
            report = run.report if getattr(run, "written", False) else None
            status = cancel.settle(int(session.exitstatus), report)
            if status != session.exitstatus:
                session.exitstatus = pytest.ExitCode(status)
        cancel.uninstall()


def _retitle(terminalreporter, line: str) -> bool:
    """Make pytest's banner of the interrupt (printed after the summary) this line, without the file:line of the
    KeyboardInterrupt's raise and the hint about --full-trace (they come only with "KeyboardInterrupt" in it)."""
    crash = getattr(getattr(terminalreporter, "_keyboardinterrupt_memo", None), "reprcrash", None)
    if not isinstance(getattr(crash, "message", None), str):
        return False
    crash.message = line
    return True
