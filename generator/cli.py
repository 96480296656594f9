"""gen-cases: write a conformance suite, or check that a directory is exactly what it would write.

    gen-cases [OUT] [--family F ...] [--profile quick|default|exhaustive] [--seed N]
              [--max-opset N] [--check]
    gen-cases --find-witnesses [--family F ...] [--budget SECONDS]

Writing is atomic: the suite is built in a temporary directory beside OUT and swapped in whole,
so OUT is either the complete old suite or the complete new one. A non-empty OUT that is not an
opconform suite is refused, never overwritten.
"""

from __future__ import annotations

import argparse
import filecmp
import multiprocessing
import os
import shutil
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import onnx

from generator import families, witness
from generator.kill_matrix import KillMatrix
from generator.serialize import is_suite, write_case, write_manifest

DEFAULT_OUT = "cases"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + error otherwise)
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gen-cases", description="Generate an opconform conformance suite.")
    p.add_argument("out", nargs="?", default=DEFAULT_OUT, help=f"suite directory (default: {DEFAULT_OUT})")
    p.add_argument("--family", action="append", choices=sorted(families.FAMILIES), metavar="F",
                   help=f"family to generate (repeatable; default: all of {', '.join(sorted(families.FAMILIES))})")
    p.add_argument("--profile", choices=families.PROFILES, default="default",
                   help="quick: edge cases only; default: + exhaustive <= 8-bit inputs, random, shapes; "
                        "exhaustive: + every 16-bit input, more random")
    p.add_argument("--seed", type=int, default=0, help="base seed of the random inputs (default 0)")
    p.add_argument("--max-opset", type=int, default=onnx.defs.onnx_opset_version(), metavar="N",
                   help="leave out cases that need a newer ai.onnx opset")
    p.add_argument("--check", action="store_true",
                   help="regenerate into a temporary directory and fail unless OUT is byte-identical")
    p.add_argument("--find-witnesses", action="store_true",
                   help="search inputs that tell each fault model from the reference and write them to the "
                        "committed catalogues under generator/witness/catalogue/ (no suite is written)")
    p.add_argument("--budget", type=float, default=60.0, metavar="SECONDS",
                   help="with --find-witnesses: hypothesis search time per family (default 60)")
    return p


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


def generate_into(target: Path, names: list[str], profile: str, seed: int, max_opset: int, jobs: int = 0) -> int:
    """Write the whole suite into an empty directory `target`; return the number of cases.

    jobs: worker processes (0: one per core, at most 2). Units run in blocks; blocks are merged in unit
    order, so the files are the same whatever the number of jobs."""
    units = []
    for name in names:
        units += families.load(name).work(profile, seed, max_opset)
    _UNITS[:], _TARGET[:] = units, [target, names]
    jobs = jobs or min(2, os.cpu_count() or 1)
    if "fork" not in multiprocessing.get_all_start_methods():
        jobs = 1  # units are closures: only forked workers can run them
    blocks = _blocks(len(units), jobs)
    progress = _Progress(len(blocks), "gen-cases")
    entries, seen = [], set()
    kills = KillMatrix(names)
    try:
        if jobs > 1:
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                results = pool.map(_run_block, blocks)
                for part, state in results:
                    entries += part
                    kills.merge(state)
                    progress.step(len(entries))
        else:
            for block in blocks:
                part, state = _run_block(block)
                entries += part
                kills.merge(state)
                progress.step(len(entries))
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


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def check(out: Path, names, profile, seed, max_opset) -> int:
    if not is_suite(out):
        raise UsageError(f"{out} is not an opconform suite (no valid manifest.json)")
    with tempfile.TemporaryDirectory(prefix="gen-cases-check-") as tmp:
        fresh = Path(tmp) / "suite"
        fresh.mkdir()
        generate_into(fresh, names, profile, seed, max_opset)
        have, want = _tree(out), _tree(fresh)
        problems = [f"missing: {p}" for p in sorted(want - have)]
        problems += [f"unexpected: {p}" for p in sorted(have - want)]
        problems += [f"differs: {p}" for p in sorted(have & want)
                     if not filecmp.cmp(out / p, fresh / p, shallow=False)]
    if problems:
        for line in problems:
            print(f"{out / line.split(': ', 1)[1]}: {line.split(':', 1)[0]}")
        print(f"gen-cases --check: {len(problems)} file(s) differ from a fresh generation "
              f"(profile={profile}, seed={seed}, max-opset={max_opset}). The committed suite was made with "
              f"the package versions in .ci/constraints.txt.", file=sys.stderr)
        return 1
    print(f"gen-cases --check: {out} is identical to a fresh generation ({len(have)} files)")
    return 0


def write(out: Path, names, profile, seed, max_opset) -> int:
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} exists and is not a directory")
    if out.exists() and any(out.iterdir()) and not is_suite(out):
        raise UsageError(f"{out} is not empty and not an opconform suite; refusing to replace it")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        n = generate_into(tmp, names, profile, seed, max_opset)
        old = None
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    print(f"gen-cases: wrote {n} cases to {out}")
    return 0


def find_witnesses(names: list[str], max_opset: int, budget: float) -> int:
    """Run each family's witness search and write its catalogue (generator/witness/catalogue/)."""
    for name in names:
        catalogue = witness.find(name, max_opset, budget)
        if catalogue is None:
            print(f"gen-cases: {name}: no witness search", file=sys.stderr)
            continue
        path = witness.save(catalogue)
        groups = catalogue["groups"].values()
        found = sum("witnesses" in e for g in groups for e in g["faults"].values())
        open_ = sum("unresolved" in e for g in groups for e in g["faults"].values())
        print(f"gen-cases: {name}: {len(catalogue['groups'])} groups, {found} (group, fault) pairs with witnesses, "
              f"{open_} unresolved -> {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.max_opset < 1:
            raise UsageError("--max-opset must be a positive opset number")
        names = sorted(set(args.family or families.FAMILIES))
        if args.find_witnesses:
            return find_witnesses(names, args.max_opset, args.budget)
        out = Path(args.out)
        if args.check:
            return check(out, names, args.profile, args.seed, args.max_opset)
        return write(out, names, args.profile, args.seed, args.max_opset)
    except UsageError as exc:
        print(f"gen-cases: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"gen-cases: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gen-cases: interrupted; the suite directory was left as it was", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
