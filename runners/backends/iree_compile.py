"""Compiling one module of many functions with `iree-compile`, so that each function's failure is its own
(the IREE backend, runners/backends/iree_backend.py).

A one-node model takes a second or more of CPU to compile alone, most of it the compiler's fixed cost; many
functions in one module share it (docs/backends_iree.md has the measurements). The compiler runs as a
subprocess: its crash is never the worker's. What a batch compile tells each function:

- it compiled: the module's vmfb holds it;
- the compiler reported errors at lines inside it: its first error line is its own (the others are compiled
  again without it: MLIR reports every function a failing pass failed on, and stops after that pass);
- the compiler died: the batch is compiled again with MLIR's crash recovery (RECOVERY: one thread, a local crash
  reproducer), which turns a crash inside a pass (a segfault, an LLVM fatal error) into a failure naming the
  function or executable the pass was on. (Not always: with one thread a failing pass stops at the first
  function it fails on, where with threads it reports every function it fails on.) The function named is compiled
  alone without the recovery, and what that gives is its outcome: a crash (the signal and the compiler's first
  words) when it dies again;
- the compiler died all the same (outside a pass), or reported an error at no function's line: the functions are
  split in two and each half compiled again, down to the one function that does it (bisection). Only the half
  holding the function asked for (`want`) is split further in this call; the other half is left undecided (it is
  batched again when one of its functions is asked for).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from runners.backends.iree_import import Module

RECOVERY = ["--mlir-disable-threading", "--mlir-pass-pipeline-local-reproducer"]  # + the reproducer's path
_DIAGNOSTIC = re.compile(r"^(?P<file>.+?\.mlir):(?P<line>\d+):(?P<col>\d+): error: (?P<what>.*)$", re.MULTILINE)
_SUMMARY = "Failures have been detected while processing an MLIR pass pipeline"  # (the recovery's, no function's)
_FAILED_ON = re.compile(r"Pipeline failed while executing `(?P<pass>[^`]*)` on '(?P<op>[^']*)' operation: "
                        r"@\"?(?P<sym>[\w.$-]+)")
_ANY_ERROR = re.compile(r"^.*\berror: .*$", re.MULTILINE)
_HANDLER_FRAMES = ("llvm::sys::", "Signals.cpp", "SignalHandler", "__restore_rt", "libc.so", "gsignal", "abort", "raise",
                   "__pthread_kill",
                   "llvm::report_fatal_error", "ErrorHandling.cpp")  # the crash handler's own frames
_FRAME = re.compile(r"^\s*#\d+\s+0x[0-9a-f]+\s+(?P<fn>.+?)(?:\s+\S+:\d+:\d+)?$")
MAX_RETRIES = 6  # compiles of a shrinking batch after attributed failures, before it is split instead


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
    crashed: dict[str, str] = field(default_factory=dict)  # function -> the pass the recovery saw crash on it


def compile_module(mod: Module, tool: str, flags: list[str], workdir: Path, want: str | None = None,
                   invocations: list | None = None) -> dict[str, Compiled]:
    """Compile mod's functions, each one's outcome by name; those left undecided are absent. The vmfb files
    are written in `workdir`. invocations: a list each compiler invocation is appended to (its function count: a
    benchmark counts them)."""
    lines = mod.text.splitlines()
    out: dict[str, Compiled] = {}
    job = _Job(lines, mod.lines, tool, flags, workdir, invocations)
    suspects: list[str] = []
    job.solve(list(mod.lines), want, out, suspects)
    for name in suspects:  # alone and without the recovery: how it really ends
        out[name] = _alone(*job.compile([name], recover=False), name)
    return out


def _alone(run: Run, vmfb: Path, name: str) -> Compiled:
    """The outcome of compiling one function alone."""
    if run.code == 0:
        return Compiled(module=str(vmfb))
    if run.code < 0:
        return Compiled(crash=_death(run), signal=-run.code)
    return Compiled(error=run.errors.get(name) or run.unplaced or _first_error(run.output))


@dataclass
class _Job:
    lines: list[str]
    spans: dict
    tool: str
    flags: list[str]
    workdir: Path
    invocations: list | None

    def compile(self, names: list[str], recover: bool) -> tuple[Run, Path]:
        vmfb = _unique(self.workdir, ".vmfb")
        run = _invoke(_subset(self.lines, self.spans, names), names, self.tool, self.flags, self.workdir, vmfb,
                      recover)
        if self.invocations is not None:
            self.invocations.append(len(names))
        if run.code != 0:
            vmfb.unlink(missing_ok=True)
        return run, vmfb

    def solve(self, names: list[str], want: str | None, out: dict, suspects: list[str]) -> None:
        for _ in range(MAX_RETRIES):
            if not names:
                return
            run, vmfb = self.compile(names, recover=False)
            if run.code == 0:
                for name in names:
                    out[name] = Compiled(module=str(vmfb))
                return
            if run.code < 0 and len(names) > 1:  # it died: once more with the recovery, to learn on what
                run, vmfb = self.compile(names, recover=True)
                if run.code == 0:  # (it crashed only with threads)
                    for name in names:
                        out[name] = Compiled(module=str(vmfb))
                    return
            if run.code > 0 and (run.errors or run.crashed) and run.unplaced is None:
                for name, line in run.errors.items():
                    out[name] = Compiled(error=line)
                suspects += [n for n in run.crashed if n not in run.errors]
                names = [n for n in names if n not in run.errors and n not in run.crashed]
                continue
            if len(names) == 1:  # died, or an error at no function's line, compiling it alone
                out[names[0]] = _alone(run, vmfb, names[0])
                return
            break
        if not names or (want is not None and want not in names):
            return  # what was asked is decided: the rest waits for its own turn
        half = len(names) // 2
        first, second = names[:half], names[half:]
        if want is not None and want in second:
            first, second = second, first
        self.solve(first, want, out, suspects)
        if want is None:
            self.solve(second, want, out, suspects)


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


def _invoke(source: tuple[str, dict], names: list[str], tool: str, flags: list[str], workdir: Path, vmfb: Path,
            recover: bool) -> Run:
    text, where = source
    path = _unique(workdir, ".mlir")
    path.write_text(text, encoding="utf-8")
    reproducer = path.with_suffix(".reproducer.mlir")
    extra = [*RECOVERY, f"--mlir-pass-pipeline-crash-reproducer={reproducer}"] if recover else []
    # LLVM's crash handler writes symbolizer-input-* / symbolizer-output-* to TMPDIR and leaves them when threads
    # crash at once (one function per thread of a batch): a TMPDIR of the invocation's own, removed after it
    scratch = tempfile.mkdtemp(dir=workdir, prefix="tmp-")
    try:
        proc = subprocess.run([tool, *flags, *extra, str(path), "-o", str(vmfb)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
                              env={**os.environ, "TMPDIR": scratch})
    finally:
        path.unlink(missing_ok=True)
        reproducer.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
    output = proc.stdout.decode("utf-8", errors="replace")
    errors: dict[str, str] = {}
    unplaced = None
    for m in _DIAGNOSTIC.finditer(output):
        if m.group("what").strip() == _SUMMARY:
            continue
        line = int(m.group("line"))
        name = next((n for n in names if where[n][0] <= line <= where[n][1]), None)
        said = f"error: {m.group('what').strip()}"
        if name is None:
            unplaced = unplaced or said
        else:
            errors.setdefault(name, said)
    crashed = {}
    for m in _FAILED_ON.finditer(output):
        name = next((n for n in names if m.group("sym") == n or m.group("sym").startswith(n + "_")), None)
        if name is None:
            unplaced = unplaced or f"error: pipeline failed in {m.group('pass')} on {m.group('op')} @{m.group('sym')}"
        elif name not in errors:
            crashed[name] = m.group("pass")
    if not errors and not crashed and unplaced is None and proc.returncode > 0:
        unplaced = _first_error(output)
    return Run(proc.returncode, errors, unplaced, output, crashed)


def _first_error(output: str) -> str:
    m = next((m for m in _ANY_ERROR.finditer(output) if _SUMMARY not in m.group(0)), None)
    if m:
        return m.group(0).strip()[:1000]
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    return lines[0][:1000] if lines else "iree-compile failed and said nothing"


def _death(run: Run) -> str:
    """How the compiler died: the signal, its fatal error or failed assertion if it said one, and the first
    frames of its stack dump below the crash handler's own."""
    try:
        sig = signal.Signals(-run.code).name
    except ValueError:
        sig = f"signal {-run.code}"
    lines = run.output.splitlines()
    said = next((ln.strip() for ln in lines if re.search(r"LLVM ERROR:|Assertion .* failed", ln)), "")
    frames = []
    for ln in lines:
        m = _FRAME.match(ln)
        name = m.group("fn").split("(", 1)[0].strip() if m else ""
        if name and not any(s in ln for s in _HANDLER_FRAMES):
            frames.append(name)
    ours = [f for f in frames if re.search(r"torch|iree|onnx", f, re.IGNORECASE)]  # the compiler's, not MLIR's
    text = f"iree-compile was killed by {sig}" + (f": {said[:300]}" if said else "")
    return text + (f" (in {' < '.join((ours or frames)[:2])[:300]})" if frames else "")


def _unique(workdir: Path, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(dir=workdir, suffix=suffix)
    os.close(fd)
    return Path(name)
