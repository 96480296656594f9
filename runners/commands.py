"""Command lines printed for a user to paste: the report's rerun and reproduce lines, `opconform repro
--script`'s `python FILE`. Every one is built here, from its arguments.

Each argument is shell-quoted (shlex.quote): a case name or path holding quotes, `$(...)`, backticks, `;`,
`&&`, `|`, spaces or a glob is, pasted into a POSIX shell (sh, dash, bash, zsh), one argument taken as it is;
nothing in it runs. (fish reads backslashes inside single quotes: paste into a POSIX shell.)

An argument holding a character printable() escapes (a newline, a CR, an escape sequence, a bidi control) or a
tab (shown as blank space; pasted, the shell may complete on it) gets no command: printed raw it could rewrite
the terminal or the line a user sees, printed escaped the command would name another file (`a\\nb` is not the
directory whose name holds a line feed). command_line returns None and the caller shows NOT_SHOWN instead. The
runner itself refuses case directories so named (one invalid-case item, never read) and records their names
escaped, so a rerun line of such an item names the escaped text: a path that does not exist, pytest says so,
and nothing runs.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from runners.escape import has_unsafe

NOT_SHOWN = ("no command shown: a name in it holds a line feed, tab, control or bidi character (shown escaped, "
             "it would name another file)")


def command_line(argv: Sequence[str | Path]) -> str | None:
    """argv as one line a POSIX shell reads back as argv; None where an argument holds a character that
    printable() would escape, or a tab (the module's docstring)."""
    args = [str(a) for a in argv]
    if any(has_unsafe(a) or "\t" in a for a in args):
        return None
    return quoted(args)


def quoted(args: Sequence[str]) -> str:
    """Arguments shown as options (a run's selection, not offered as a command): each shell-quoted, so a
    pasted one runs nothing; a control character in one is left for printable() to escape on display."""
    return " ".join(shlex.quote(a) for a in args)


def rerun_command(nodeid: str, backend: str, tier: str = "strict") -> str | None:
    """`pytest NODEID --backend B`: one item rerun through pytest (a node id is relative to the run's rootdir)."""
    return command_line(["pytest", nodeid, "--backend", backend, *_tier(tier)])


def repro_command(case_dir: Path | str, dataset: int, backend: str, tier: str = "strict") -> str | None:
    """`opconform repro CASE_DIR[i] --backend B`: one item run alone, its inputs, expected and actual shown
    (runners/repro.py)."""
    return command_line(["opconform", "repro", f"{case_dir}[{dataset}]", "--backend", backend, *_tier(tier)])


def _tier(tier: str) -> list[str]:
    return ["--tier", "tolerant"] if tier == "tolerant" else []  # strict is the default
