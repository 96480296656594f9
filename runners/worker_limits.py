"""The limits a backend's worker runs under (runners/worker.py): the time one data set may take (--case-timeout),
the memory the worker may write (--case-memory), what a backend's output keeps, how running out of memory
is recognised, and how a worker's end is told (describe_exit, _read_tail: what it wrote last)."""

from __future__ import annotations

import os
import re
import signal

from runners.results import Result

try:
    import resource
except ImportError:  # not on Windows: there the worker runs without a memory cap
    resource = None

DEFAULT_TIMEOUT = 60.0
# The longest --case-timeout: the worker's pipe is polled with an int of milliseconds (at most 2**31 - 1 ms,
# 24.8 days; beyond it, or inf, poll raises OverflowError).
MAX_TIMEOUT = 1e6  # seconds, 11.6 days

# The worker's memory cap is RLIMIT_DATA (what can be written: heap, anonymous mappings, thread stacks), not
# RLIMIT_AS (all address space, also what is only reserved: 64 MiB malloc arenas, up to 8 per core, and
# library mappings). Measured on the committed suite (9936 cases, every data set, one worker, 2 cores; peaks,
# VmData sampled every 50 ms):
#                            VmPeak (RLIMIT_AS)  VmData (RLIMIT_DATA)  VmHWM (resident)  threads
#   onnxruntime 1.32.0          571 MiB              201 MiB               90 MiB           3
#   OpenVINO 2026.4.1           1.50 GiB             427 MiB              142 MiB          24
# 184 MiB of OpenVINO's VmData is thread stacks (8 MiB each); its reservations grow with the core count
# (arenas, threads), so an address-space cap that suits 2 cores can bite on 64. The suite runs the same under
# a cap of 512M (onnxruntime) and 1G (OpenVINO): no data set ran out of memory. The default leaves ~10x
# OpenVINO's peak (room for some 400 more threads) and stops a runaway case long before it takes a machine.
# A runaway allocation fails there as MemoryError (numpy, pybind11) or the runtime's "failed to allocate".
DEFAULT_MEMORY = 4 << 30
# The smallest cap taken: a worker that has loaded its backend and run one case has written 119 MiB
# (onnxruntime), 134 MiB (opconform), 167 MiB (OpenVINO); below this it can hardly start ("--case-memory 4" is a slip).
MIN_MEMORY = 256 << 20
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# What a backend says when an allocation fails (lower case): Python's MemoryError (and numpy's
# _ArrayMemoryError; pybind11 turns C++'s std::bad_alloc into it), C++'s bad_alloc, onnxruntime's BFC arena
# ("Failed to allocate memory for requested buffer") and OpenVINO's CPU plugin ("Failed to allocate N bytes").
_OUT_OF_MEMORY = ("memoryerror", "bad_alloc", "failed to allocate")
# The worker's exit code when MemoryError escapes its own code (reading a case, handling the outputs,
# sending the answer): it says the worker ran out of memory, not that it crashed.
_OUT_OF_MEMORY_EXIT = 86
# The backend's output (fds 1 and 2 of the worker) kept per data set: the last OUTPUT_TAIL bytes in the
# record, the last MESSAGE_TAIL in the message of a failing verdict.
OUTPUT_TAIL = 4096
MESSAGE_TAIL = 1024
_OUTPUT_HEAD = "\nthe backend wrote "  # starts the part of a message that shows the output



def check_timeout(seconds: float) -> float:
    """`seconds` as a float if it is a usable --case-timeout, else ValueError with one line (NaN, inf,
    <= 0, above MAX_TIMEOUT). The caller names the option."""
    if not seconds > 0:  # NaN too
        raise ValueError("must be a positive number of seconds")
    if not seconds <= MAX_TIMEOUT:
        raise ValueError(f"must be at most {MAX_TIMEOUT:.0f} seconds ({MAX_TIMEOUT / 86400:.1f} days)")
    return float(seconds)


def parse_size(text: str) -> int | None:
    """Bytes from a --case-memory size: "4G", "512M", "1.5G", "65536K", "4294967296" (K, M, G, T are powers
    of 1024, any case, an optional trailing B), or None for "none" (no cap). ValueError with one line
    otherwise; the caller names the option."""
    t = text.strip().upper()
    if t == "NONE":
        return None
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)I?B?", t)
    if m is None:
        raise ValueError("not a size: give bytes with an optional K, M, G or T (powers of 1024), e.g. 4G or "
                         "512M, or none for no cap")
    size = int(float(m.group(1)) * _SIZE_UNITS[m.group(2)])
    if size < MIN_MEMORY:
        raise ValueError(f"at least {format_size(MIN_MEMORY)} (a worker with its backend loaded writes 120M to 170M)")
    if size > 1 << 62:  # setrlimit takes a 64-bit value
        raise ValueError("too large (give none for no cap)")
    return size


def format_size(size: int | None) -> str:
    """"4G", "512M", "1.5G", ... (what parse_size reads back); "none" for None."""
    if size is None:
        return "none"
    for unit in "TGMK":
        if size >= _SIZE_UNITS[unit]:
            return f"{size / _SIZE_UNITS[unit]:.4g}{unit}"
    return str(size)


def _cap_memory(memory: int | None) -> None:
    """Cap the worker's writable memory (RLIMIT_DATA, see DEFAULT_MEMORY): soft limit only, never above
    the hard limit the worker was given."""
    if memory is None or resource is None:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        memory = min(memory, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (memory, hard))


def _says_out_of_memory(text: str) -> bool:
    return any(m in text.lower() for m in _OUT_OF_MEMORY)


def _ran_out_of_memory(r: Result) -> bool:
    """True when the data set ended because an allocation failed (the backend's words, _OUT_OF_MEMORY)."""
    return _says_out_of_memory(f"{r.error or ''} {r.message}")


def _starved(text: str) -> bool:
    """Whether a worker's last words say it ran out of memory before opconform's own handler was in place:
    Python's start-up (the spawn bootstrap compiling a module where no .pyc exists yet, as in a fresh clone)
    raises MemoryError there, or, when compile() itself cannot allocate, SystemError "returned NULL without
    setting an exception", and the process exits 1."""
    return _says_out_of_memory(text) or "returned NULL without setting an exception" in text


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def describe_exit(exitcode: int | None) -> str:
    """'signal SIGSEGV (11)' for a death by signal, else 'exit code N'."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"signal {name} ({-exitcode})"
    return f"exit code {exitcode}"


def _read_tail(fd: int | None) -> tuple[bytes, int]:
    """(the last OUTPUT_TAIL bytes of a worker's output file, its size); empty when there is none."""
    if fd is None:
        return b"", 0
    try:
        size = os.fstat(fd).st_size
        keep = min(size, OUTPUT_TAIL)
        return os.pread(fd, keep, size - keep), size
    except OSError:
        return b"", 0
