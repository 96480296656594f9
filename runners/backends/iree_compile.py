"""Compiling one module of many functions with `iree-compile`, so that each function's failure is its own
(the IREE backend, runners/backends/iree_backend.py).

A one-node model takes a second or more of CPU to compile alone, most of it the compiler's fixed cost; many
functions in one module share it (docs/backends_iree.md has the measurements). The compiler runs as a
subprocess: its crash is never the worker's. What a batch compile tells each function:

- it compiled: the module's vmfb holds it;
- the compiler reported errors at lines inside it: its first error line is its own (the others are compiled
  again without it: MLIR reports every function a failing pass failed on, and stops after that pass);
- the compiler died (a signal), or reported an error at no function's line: the functions are split in two and
  each half is compiled again, down to the one function that crashes it (bisection). Only the half holding the
  function asked for (`want`) is split further in this call; the other half is left undecided (it is batched
  again when one of its functions is asked for), so a crash costs the item that asked a few compiles, not the
  batch's.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runners.backends.iree_import import Module

_DIAGNOSTIC = re.compile(r"^(?P<file>.+?\.mlir):(?P<line>\d+):(?P<col>\d+): error: (?P<what>.*)$", re.MULTILINE)
_ANY_ERROR = re.compile(r"^.*\berror: .*$", re.MULTILINE)
MAX_RETRIES = 6  # compiles of a shrinking batch after attributed errors, before it is split instead


@dataclass
class Compiled:
    """What the compiler made of one function: in `module` (a vmfb path), or its `error` (the compiler's first
    error line for it), or `crash` (how the compiler died compiling it alone, and its first words)."""

    module: str | None = None
    error: str | None = None
    crash: str | None = None
    signal: int | None = None  # the signal that killed the compiler (with crash)


@dataclass
class Run:
    """One compiler invocation: its exit, where each error line points, what it wrote."""

    code: int
    errors: dict[str, str]  # function -> its first error line
    unplaced: str | None  # the first error line no function holds
    output: str


def compile_module(mod: Module, tool: str, flags: list[str], workdir: Path, want: str | None = None,
                   invocations: list | None = None) -> dict[str, Compiled]:
    """Compile mod's functions, each one's outcome by name; those left undecided are absent. The vmfb files
    are written in `workdir`. invocations: a list each compiler invocation is appended to (a benchmark counts
    them)."""
    lines = mod.text.splitlines()
    out: dict[str, Compiled] = {}
    _solve(lines, mod.lines, list(mod.lines), tool, flags, workdir, want, out, invocations)
    return out


def _solve(lines: list[str], spans: dict, names: list[str], tool, flags, workdir, want, out, invocations) -> None:
    for _ in range(MAX_RETRIES):
        if not names:
            return
        vmfb = _unique(workdir, ".vmfb")
        run = _invoke(_subset(lines, spans, names), names, spans, tool, flags, workdir, vmfb)
        if invocations is not None:
            invocations.append(len(names))
        if run.code == 0:
            for name in names:
                out[name] = Compiled(module=str(vmfb))
            return
        vmfb.unlink(missing_ok=True)
        if run.code > 0 and run.errors and run.unplaced is None:
            for name, line in run.errors.items():
                out[name] = Compiled(error=line)
            names = [n for n in names if n not in run.errors]
            continue
        if len(names) == 1:  # died, or an error at no function's line, compiling it alone
            name = names[0]
            out[name] = (Compiled(crash=_death(run), signal=-run.code) if run.code < 0
                         else Compiled(error=run.unplaced or _first_error(run.output)))
            return
        break
    if want is not None and want not in names:
        return  # what was asked is decided: the rest waits for its own turn
    half = len(names) // 2
    first, second = names[:half], names[half:]
    if want is not None and want in second:
        first, second = second, first
    _solve(lines, spans, first, tool, flags, workdir, want, out, invocations)
    if want is None:
        _solve(lines, spans, second, tool, flags, workdir, want, out, invocations)


def _subset(lines: list[str], spans: dict, keep: list[str]) -> tuple[str, dict]:
    """The module's text without the functions not kept, and the kept ones' line ranges in it."""
    dropped = sorted(spans[n] for n in spans if n not in keep)
    text, new, at = [], {}, 1
    shift = {}
    for n, line in enumerate(lines, start=1):
        if any(a <= n <= b for a, b in dropped):
            continue
        shift[n] = at
        text.append(line)
        at += 1
    for name in keep:
        a, b = spans[name]
        new[name] = (shift[a], shift[b])
    return "\n".join(text) + "\n", new


def _invoke(source: tuple[str, dict], names: list[str], spans: dict, tool: str, flags: list[str], workdir: Path,
            vmfb: Path) -> Run:
    text, where = source
    path = _unique(workdir, ".mlir")
    path.write_text(text, encoding="utf-8")
    try:
        proc = subprocess.run([tool, *flags, str(path), "-o", str(vmfb)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    finally:
        path.unlink(missing_ok=True)
    output = proc.stdout.decode("utf-8", errors="replace")
    errors: dict[str, str] = {}
    unplaced = None
    for m in _DIAGNOSTIC.finditer(output):
        line = int(m.group("line"))
        name = next((n for n in names if where[n][0] <= line <= where[n][1]), None)
        said = f"error: {m.group('what').strip()}"
        if name is None:
            unplaced = unplaced or said
        else:
            errors.setdefault(name, said)
    if not errors and unplaced is None and proc.returncode > 0:
        unplaced = _first_error(output)
    return Run(proc.returncode, errors, unplaced, output)


def _first_error(output: str) -> str:
    m = _ANY_ERROR.search(output)
    if m:
        return m.group(0).strip()[:1000]
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    return lines[0][:1000] if lines else "iree-compile failed and said nothing"


def _death(run: Run) -> str:
    """How the compiler died: the signal, and the first line of what it said that is no boilerplate."""
    try:
        sig = signal.Signals(-run.code).name
    except ValueError:
        sig = f"signal {-run.code}"
    skip = ("PLEASE submit a bug report", "Stack dump", "Program arguments", "Stack dump without symbol names",
            "Please report issues")
    said = next((ln.strip() for ln in run.output.splitlines()
                 if ln.strip() and not any(s in ln for s in skip) and not re.match(r"\s*\d+\s", ln)), "")
    frame = next((ln.strip() for ln in run.output.splitlines() if re.match(r"\s*#?\d+\s+0x[0-9a-f]+", ln)), "")
    return f"iree-compile was killed by {sig}" + (f": {said[:300]}" if said else "") + (
        f" (first frame: {frame[:200]})" if frame else "")


def _unique(workdir: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(dir=workdir, suffix=suffix)
    os.close(fd)
    return Path(name)
