"""`opconform ARGS` in the test's own process, for the commands that touch no signal handler (all but `run`,
which takes SIGTERM / SIGHUP over: runners/cancel.py): the same exit status and output as the command, without an
interpreter to start."""

from __future__ import annotations

import contextlib
import io
import subprocess


def opconform(*args: str) -> subprocess.CompletedProcess:
    from runners.cli import main

    assert args[:1] != ("run",), "opconform run installs signal handlers: run it as a command"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
    return subprocess.CompletedProcess(["opconform", *args], code, out.getvalue(), err.getvalue())
