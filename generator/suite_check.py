"""gen-cases --check: regenerate with the options a suite's manifest.json records, into a temporary
directory, and compare byte for byte."""

from __future__ import annotations

import filecmp
import sys
import tempfile
from pathlib import Path

from generator import families
from generator.gen_cases_args import UsageError, known_opset
from generator.suite_entries import foreign_entries, show_names, suite_files
from generator.suite_generation import generate_into


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
    known_opset(max_opset, f"{where}: options.max_opset")
    return {"families": sorted(set(fams)), "profile": profile, "seed": seed, "max_opset": max_opset}


def check_options(out: Path, args) -> dict:
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
        have, want = suite_files(out), suite_files(fresh)
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
        print(f"gen-cases --check: note: not part of the suite, not checked: {show_names(foreign)}", file=sys.stderr)
    print(f"gen-cases --check: {out} is identical to a fresh generation ({len(have)} files)")
    return 0
