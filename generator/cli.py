"""gen-cases: write a conformance suite, or check that a directory is exactly what it would write.

    gen-cases [OUT] [--family F ...] [--profile quick|default|exhaustive] [--seed N]
              [--max-opset N] [--replace] [--check]
    gen-cases --find-witnesses [--family F ...] [--budget EXAMPLES]

Writing is atomic: the suite is built in a temporary directory beside OUT and swapped in whole,
so OUT is either the complete old suite or the complete new one (generator/outdir.py: mount points,
symlinks, leftovers of killed runs). A non-empty OUT that is not an opconform suite is refused, never
overwritten. --check regenerates with the options recorded in the suite's manifest.json.

What gen-cases replaces in OUT is the suite only: manifest.json, the kind folders (node/, graph/, negative/,
probe/) and tables/ (suite_entry), each whole. Every other entry of OUT (a vendor's baseline, ci/notes.md)
is not gen-cases' and is kept: carried over into the new OUT, named in a note; --check leaves it out too.
Put nothing of your own inside the suite's folders: they are replaced whole.

A regeneration that would drop cases of the suite in OUT says how many (by kind and by family). When it was
made with other options than the suite's (e.g. --family layout over a whole suite) it is refused, OUT
untouched, unless --replace says that is meant.

Heavy modules (onnx, the families' references) are imported inside main, so that a Ctrl-C while they load
ends like any other: one line, exit 130.
"""

from __future__ import annotations

import argparse
import ctypes
import filecmp
import multiprocessing
import os
import signal
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from generator import families, outdir

DEFAULT_OUT = "cases"
TABLES = "tables"  # the folder of a suite's tables (kill matrix, a family's extra_files)
DEFAULT_BUDGET = 500  # hypothesis examples per witness search
DEFAULTS = {"profile": "default", "seed": 0}  # and max_opset: the newest of the installed onnx
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage + error otherwise)
        raise UsageError(message)


def _examples(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of examples (--budget counts "
                                         "hypothesis examples per search, not seconds)")
    return n


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="gen-cases", description="Generate an opconform conformance suite.")
    p.add_argument("out", nargs="?", default=DEFAULT_OUT, help=f"suite directory (default: {DEFAULT_OUT})")
    p.add_argument("--family", action="append", choices=sorted(families.FAMILIES), metavar="F",
                   help=f"family to generate (repeatable; default: all of {', '.join(sorted(families.FAMILIES))})")
    # defaults are None: --check must know which options were given (see _check_options)
    p.add_argument("--profile", choices=families.PROFILES,
                   help="quick: edge cases only; default (the default): + exhaustive <= 8-bit inputs, random, "
                        "shapes; exhaustive: + every 16-bit input, more random")
    p.add_argument("--seed", type=int, help="base seed of the random inputs (default 0)")
    p.add_argument("--max-opset", type=int, metavar="N",
                   help="leave out cases that need a newer ai.onnx opset (default: the newest onnx knows)")
    p.add_argument("--replace", action="store_true",
                   help="replace the suite in OUT even though this generation drops some of its cases (made with "
                        "a narrower --family, --profile or --max-opset than the suite's); without it that is refused")
    p.add_argument("--check", action="store_true",
                   help="regenerate with the options recorded in OUT's manifest.json into a temporary directory "
                        "and fail unless OUT is byte-identical")
    p.add_argument("--find-witnesses", action="store_true",
                   help="search inputs that tell each fault model from the reference and write them to the "
                        "committed catalogues under generator/witness/catalogue/ (no suite is written)")
    p.add_argument("--budget", type=_examples, default=DEFAULT_BUDGET, metavar="EXAMPLES",
                   help="with --find-witnesses: hypothesis examples for each search, i.e. each (group, fault) pair "
                        f"that construction and enumeration leave open (default {DEFAULT_BUDGET}); a count, not a "
                        "time, so that the catalogues do not depend on the machine's speed or load")
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


def suite_entry(name: str) -> bool:
    """Is an entry of OUT named `name` part of a suite (gen-cases' to replace)? The others are kept."""
    from generator.serialize import KINDS, MANIFEST

    return name == MANIFEST or name == TABLES or name in KINDS


def foreign_entries(out: Path) -> list[str]:
    """The entries of the directory `out` that are not part of a suite ([] if it is no directory)."""
    real = Path(os.path.realpath(out))
    if not real.is_dir():
        return []
    return [n for n in outdir.entries(real) if not suite_entry(n)]


def _show_names(names: list[str], most: int = 5) -> str:
    shown = [n if n.isprintable() else ascii(n) for n in names[:most]]
    return ", ".join(shown) + (f" and {len(names) - most} more" if len(names) > most else "")


def _tree(root: Path) -> set[str]:
    """The files of the suite in root (its entries that are not part of a suite left out)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and suite_entry(p.relative_to(root).parts[0])}


def _newest_opset() -> int:
    import onnx

    return onnx.defs.onnx_opset_version()


def _known_opset(max_opset: int, what: str) -> int:
    """max_opset, refused (one line) when the installed onnx stops at an older opset: its schemas decide
    which cases exist, so a suite written past them would quietly lack the newer cases its manifest claims."""
    import onnx

    newest = _newest_opset()
    if max_opset > newest:
        raise UsageError(f"{what} {max_opset}: this onnx ({onnx.__version__}) knows ai.onnx opsets up to {newest}; "
                         f"install a newer onnx or ask for --max-opset {newest} or lower")
    return max_opset


def _options(args) -> dict:
    """The generation options of a write: those given, defaults for the others."""
    return {"families": sorted(set(args.family or families.FAMILIES)),
            "profile": args.profile or DEFAULTS["profile"],
            "seed": DEFAULTS["seed"] if args.seed is None else args.seed,
            "max_opset": _known_opset(args.max_opset, "--max-opset") if args.max_opset else _newest_opset()}


def _recorded_options(out: Path) -> dict:
    """The options a suite's manifest.json says it was generated with, checked."""
    from generator.serialize import CaseError, is_suite, read_manifest

    if not is_suite(out):
        raise UsageError(f"{out} is not an opconform suite (no valid manifest.json)")
    try:
        options = read_manifest(out).get("options")
    except CaseError as exc:
        raise UsageError(str(exc)) from None
    where = out / "manifest.json"
    if isinstance(options, dict) and "hunt" in options:
        raise UsageError(f"{out} was written by opconform hunt: its cases are findings, not a generation "
                         "(rerun the hunt; opconform hunt --keep makes them regression cases of gen-cases)")
    if not isinstance(options, dict):
        raise UsageError(f"{where} records no generation options; regenerate the suite with gen-cases")
    fams, profile, seed, max_opset = (options.get(k) for k in ("families", "profile", "seed", "max_opset"))
    if not (isinstance(fams, list) and fams and all(f in families.FAMILIES for f in fams)):
        raise UsageError(f"{where}: options.families {fams!r} is not a list of families of this gen-cases "
                         f"({', '.join(sorted(families.FAMILIES))})")
    if profile not in families.PROFILES:
        raise UsageError(f"{where}: options.profile {profile!r} is not one of {', '.join(families.PROFILES)}")
    if type(seed) is not int:
        raise UsageError(f"{where}: options.seed {seed!r} is not an integer")
    if type(max_opset) is not int or max_opset < 1:
        raise UsageError(f"{where}: options.max_opset {max_opset!r} is not a positive integer")
    _known_opset(max_opset, f"{where}: options.max_opset")
    return {"families": sorted(set(fams)), "profile": profile, "seed": seed, "max_opset": max_opset}


def _check_options(out: Path, args) -> dict:
    """--check regenerates with the manifest's options. An option given on the command line that says
    otherwise is an error naming both: the check could only fail (or pass for a suite it was not asked
    about), and quietly preferring either one hides a mistake in a CI script."""
    recorded = _recorded_options(out)
    given = {"families": sorted(set(args.family)) if args.family else None, "profile": args.profile,
             "seed": args.seed, "max_opset": args.max_opset}
    for key, value in given.items():
        if value is not None and value != recorded[key]:
            flag = "--family" if key == "families" else f"--{key.replace('_', '-')}"
            show = ",".join if key == "families" else str
            raise UsageError(f"{flag} {show(value)} contradicts {out / 'manifest.json'}, which records "
                             f"{key}={show(recorded[key])}; --check uses the recorded options: drop {flag}")
    return recorded


def check(out: Path, names, profile, seed, max_opset) -> int:
    from generator.serialize import is_suite

    if not is_suite(out):
        raise UsageError(f"{out} is not an opconform suite (no valid manifest.json)")
    with tempfile.TemporaryDirectory(prefix="gen-cases-check-") as tmp:
        fresh = Path(tmp) / "suite"
        fresh.mkdir()
        generate_into(fresh, names, profile, seed, max_opset)
        have, want = _tree(out), _tree(fresh)
        foreign = foreign_entries(out)
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
    if foreign:
        print(f"gen-cases --check: note: not part of the suite, not checked: {_show_names(foreign)}", file=sys.stderr)
    print(f"gen-cases --check: {out} is identical to a fresh generation ({len(have)} files)")
    return 0


def _min_opset(name: str) -> int | None:
    """The lowest ai.onnx opset of any case of a family (MIN_OPSET, or OPSET for a one-opset family)."""
    module = families.load(name)
    return getattr(module, "MIN_OPSET", getattr(module, "OPSET", None))


def _need(names: list[str]) -> str:
    return ", ".join(f"{n} {_min_opset(n)}" for n in names if _min_opset(n) is not None)


def _check_selection(names: list[str], max_opset: int) -> None:
    """A selection that can yield no case is an error before any work."""
    lowest = [_min_opset(n) for n in names]
    if all(low is not None and low > max_opset for low in lowest):
        raise UsageError(f"--max-opset {max_opset} leaves no case: the chosen families need ai.onnx opset "
                         f"{min(lowest)} at least ({_need(names)})")


def _note_empty_families(names: list[str], max_opset: int, entries_by_family: dict[str, int]) -> None:
    for name in names:
        if not entries_by_family.get(name):
            low = _min_opset(name)
            why = f" (it needs ai.onnx opset {low})" if low is not None and low > max_opset else ""
            print(f"gen-cases: note: {name} has no case at --max-opset {max_opset}{why}", file=sys.stderr)


def _suite_in(out: Path) -> tuple[list[dict], dict | None] | None:
    """(cases, options) of the suite in OUT as its manifest lists them; None if OUT holds no suite, or one whose
    manifest lists no cases."""
    from generator.serialize import CaseError, is_suite, read_manifest

    try:
        if not is_suite(out):
            return None
        manifest = read_manifest(out)
    except (CaseError, OSError, ValueError):
        return None
    cases = manifest.get("cases")
    if not isinstance(cases, list):
        return None
    cases = [c for c in cases if isinstance(c, dict) and isinstance(c.get("name"), str)]
    options = manifest.get("options")
    return cases, options if isinstance(options, dict) else None


def _counted(cases: list[dict], key: str) -> str:
    counts: dict[str, int] = {}
    for c in cases:
        k = c.get(key) if isinstance(c.get(key), str) else "?"
        counts[k] = counts.get(k, 0) + 1
    return ", ".join(f"{_show_names([k])} {n}" for k, n in sorted(counts.items()))


def _dropped(old: list[dict], new: list[dict]) -> list[dict]:
    """The cases of the old suite that the new one has not (by kind and name)."""
    have = {(c.get("kind"), c["name"]) for c in new}
    return [c for c in old if (c.get("kind"), c["name"]) not in have]


def write(out: Path, names, profile, seed, max_opset, replace: bool = False) -> int:
    from generator.serialize import is_suite, read_manifest

    _check_selection(names, max_opset)
    per_family: dict[str, int] = {}
    options = {"families": names, "profile": profile, "seed": seed, "max_opset": max_opset}
    dropped: list[dict] = []

    def build(target: Path) -> int:
        n = generate_into(target, names, profile, seed, max_opset)
        if n == 0:  # the old suite stays: an empty one replaces nothing
            raise UsageError(f"no case to write with --max-opset {max_opset} and --profile {profile} "
                             f"(the families need ai.onnx opset: {_need(names)})")
        new = read_manifest(target)["cases"]
        for case in new:
            per_family[case["family"]] = per_family.get(case["family"], 0) + 1
        old = _suite_in(out)
        if old is not None:
            dropped[:] = _dropped(old[0], new)
            if dropped and not replace:  # the old suite stays
                _refuse_a_narrower_suite(out, old, dropped, options, f"this generation ({n} cases)")
        return n

    old = _suite_in(out)
    if old is not None and not replace:  # before minutes of work: the cases of families not chosen go for sure
        _refuse_a_narrower_suite(out, old, [c for c in old[0] if c.get("family") not in names], options,
                                 "a generation of other families")
    try:
        n = outdir.replace(out, build, is_suite, own=suite_entry)
    except outdir.Refused as exc:
        raise UsageError(str(exc)) from None
    _note_empty_families(names, max_opset, per_family)
    if dropped:
        print(f"gen-cases: note: {len(dropped)} cases of the suite that was in {out} are dropped (by kind: "
              f"{_counted(dropped, 'kind')}; by family: {_counted(dropped, 'family')})", file=sys.stderr)
    kept = foreign_entries(out)
    if kept:
        print(f"gen-cases: note: kept {len(kept)} entries of {out} that are not part of the suite: "
              f"{_show_names(kept)}", file=sys.stderr)
    print(f"gen-cases: wrote {n} cases to {out}")
    return 0


def _refuse_a_narrower_suite(out: Path, old: tuple[list[dict], dict | None], dropped: list[dict], options: dict,
                             what: str) -> None:
    """UsageError if `dropped` (cases of the suite in OUT) would go and the suite was made with other options;
    with the same options (the generator changed) the cases just go, with a note."""
    recorded = {k: (old[1] or {}).get(k) for k in options}
    if not dropped or recorded == options:
        return

    def show(v) -> str:
        return _show_names([",".join(map(str, v)) if isinstance(v, list) else str(v)])

    differ = "; ".join(f"{k.replace('_', '-')} {show(recorded[k])} -> {show(options[k])}"
                       for k in options if recorded[k] != options[k])
    raise UsageError(f"{out} holds a suite of {len(old[0])} cases; {what} would drop {len(dropped)} of them "
                     f"(by kind: {_counted(dropped, 'kind')}; by family: {_counted(dropped, 'family')}) and "
                     f"was asked with other options than the suite's ({differ}): pass --replace to replace it, "
                     f"or write to another directory")


@contextmanager
def hypothesis_home():
    """hypothesis keeps caches (its unicode tables, even with database=None) under .hypothesis/ in the working
    directory: a witness search (and opconform hunt) puts them in a temporary directory instead."""
    try:
        from hypothesis import configuration
    except ImportError:  # the searches say so themselves
        yield
        return
    with tempfile.TemporaryDirectory(prefix="gen-cases-hypothesis-") as tmp:
        configuration.set_hypothesis_home_dir(tmp)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(None)


def find_witnesses(names: list[str], max_opset: int, budget: int) -> int:
    """Run each family's witness search and write its catalogue (generator/witness/catalogue/)."""
    from generator import witness

    for name in names:
        with hypothesis_home():
            catalogue = witness.find(name, max_opset, budget)
        if catalogue is None:
            print(f"gen-cases: {name}: no witness search", file=sys.stderr)
            continue
        hunted = witness.load(name).get("hunted")
        if hunted:  # what `opconform hunt --keep` found is data no search finds again: keep it
            catalogue["hunted"] = hunted
        path = witness.save(catalogue)
        groups = catalogue["groups"].values()
        found = sum("witnesses" in e for g in groups for e in g["faults"].values())
        open_ = sum("unresolved" in e for g in groups for e in g["faults"].values())
        print(f"gen-cases: {name}: {len(catalogue['groups'])} groups, {found} (group, fault) pairs with witnesses, "
              f"{open_} unresolved -> {path}")
    return 0


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.max_opset is not None and args.max_opset < 1:
        raise UsageError("--max-opset must be a positive opset number")
    out = Path(args.out)
    if args.find_witnesses:
        o = _options(args)
        return find_witnesses(o["families"], o["max_opset"], args.budget)
    if args.check:
        o = _check_options(out, args)
        return check(out, o["families"], o["profile"], o["seed"], o["max_opset"])
    o = _options(args)
    return write(out, o["families"], o["profile"], o["seed"], o["max_opset"], replace=args.replace)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except UsageError as exc:
        print(f"gen-cases: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gen-cases: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        done = isinstance(exc, outdir.InterruptedAfterWrite)
        print(f"gen-cases: interrupted; {exc if done else 'the suite directory was left as it was'}",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
