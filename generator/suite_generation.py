"""Generating a suite into an empty directory: every family's units of work in blocks, in forked worker
processes, merged in unit order so that the files are the same whatever the number of workers."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from generator import families, outdir

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class _Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int, label: str):
        self.total, self.label, self.done = total, label, 0
        self.on = sys.stderr.isatty() and total > 0

    def step(self, cases: int) -> None:
        self.done += 1
        if self.on:
            width = 30
            fill = width * self.done // self.total
            sys.stderr.write(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} ({cases} cases)")
            sys.stderr.flush()

    def close(self) -> None:
        if self.on:
            sys.stderr.write("\n")


_UNITS: list = []  # the units of the generation under way; forked workers inherit them (they are closures)
_TARGET: list = []


def _run_block(indices: range) -> tuple[list[dict], dict]:
    """Generate and write the cases of some units; their manifest entries and their part of the kill matrix."""
    from generator.kill_matrix import KillMatrix
    from generator.serialize import write_case

    target, names = _TARGET
    kills = KillMatrix(names)
    entries = []
    for i in indices:
        for case in _UNITS[i]():
            kills.add(case)
            meta = write_case(case, target)
            entries.append({k: meta[k] for k in ("name", "kind", "op", "family", "opset", "params", "flags")
                            if k in meta})
    return entries, kills.state()


def _blocks(n: int, jobs: int) -> list[range]:
    size = max(1, n // (jobs * 8)) if jobs > 1 else n or 1
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _worker_start(parent: int) -> None:
    """Pool initializer. Ctrl-C reaches the whole process group: the parent alone handles it (a worker's
    KeyboardInterrupt would print its own traceback), so a worker ignores SIGINT, which its parent blocked
    until this point. A worker dies with its parent: a killed gen-cases leaves no worker writing on into
    its temporary directory (which keeps that directory locked, so never cleaned)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the worker ends when it finds its task queue closed
        pass
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(1)


def _run_blocks(blocks: list[range], jobs: int, take) -> None:
    """take(entries, kill matrix state) of each block, in block order."""
    if jobs == 1:
        for block in blocks:
            take(*_run_block(block))
        return
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_worker_start,
                               initargs=(os.getpid(),))
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the workers are forked at the 1st submit
        try:
            # submit, not map(): an interrupted map() cancels the queued futures itself, and the pool's manager
            # thread, finding its workers terminated below, then fails on them (InvalidStateError: CANCELLED,
            # a thread traceback after Ctrl-C); pending futures are cancelled by shutdown() alone
            futures = [pool.submit(_run_block, block) for block in blocks]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for future in futures:
            take(*future.result())
    except BaseException:
        # Ctrl-C or a failed block: stop the workers now (a block can run for minutes), before the caller
        # removes the directory they write into
        with outdir.sigint_held():
            for worker in set(multiprocessing.active_children()) - before:
                worker.terminate()
                worker.join()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _units(names: list[str], profile: str, seed: int, max_opset: int) -> list:
    from generator import witness

    units = []
    for name in names:
        module = families.load(name)
        units += module.work(profile, seed, max_opset)
        if profile != "quick":  # findings of opconform hunt --keep, as the witnesses
            units.append(lambda name=name, module=module: witness.hunted_cases(name, module, max_opset))
    return units


def generate_into(target: Path, names: list[str], profile: str, seed: int, max_opset: int, jobs: int = 0) -> int:
    """Write the whole suite into an empty directory `target`; return the number of cases.

    jobs: worker processes (0: one per core, at most 2). Units run in blocks; blocks are merged in unit
    order, so the files are the same whatever the number of jobs."""
    from generator.kill_matrix import KillMatrix
    from generator.serialize import write_manifest

    _UNITS[:], _TARGET[:] = _units(names, profile, seed, max_opset), [target, names]
    jobs = jobs or min(2, os.cpu_count() or 1)
    if "fork" not in multiprocessing.get_all_start_methods():
        jobs = 1  # units are closures: only forked workers can run them
    blocks = _blocks(len(_UNITS), jobs)
    progress = _Progress(len(blocks), "gen-cases")
    entries, seen = [], set()
    kills = KillMatrix(names)

    def take(part: list[dict], state: dict) -> None:
        entries.extend(part)
        kills.merge(state)
        progress.step(len(entries))

    try:
        _run_blocks(blocks, jobs, take)
    finally:
        _UNITS.clear()
        _TARGET.clear()
    progress.close()
    for e in entries:
        if e["name"] in seen:
            raise RuntimeError(f"two cases named {e['name']}")
        seen.add(e["name"])
    files = kills.files()
    for name in names:  # files a family writes beside its cases (e.g. a table), covered by --check
        extra = getattr(families.load(name), "extra_files", None)
        files.update(extra(profile, seed, max_opset) if extra else {})
    for rel, data in sorted(files.items()):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_bytes(data)
    options = {"families": names, "profile": profile, "seed": seed, "max_opset": max_opset}
    write_manifest(target, options, entries)
    return len(entries)
