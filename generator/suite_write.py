"""gen-cases writing OUT: the suite swapped in whole (generator/outdir.py), a selection that yields no case
refused before any work, and a regeneration that would drop cases of the suite in OUT refused unless --replace."""

from __future__ import annotations

import sys
from pathlib import Path

from generator import families, outdir
from generator.gen_cases_args import UsageError
from generator.suite_entries import foreign_entries, show_names, suite_entry
from generator.suite_generation import generate_into


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
    return ", ".join(f"{show_names([k])} {n}" for k, n in sorted(counts.items()))


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
              f"{show_names(kept)}", file=sys.stderr)
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
        return show_names([",".join(map(str, v)) if isinstance(v, list) else str(v)])

    differ = "; ".join(f"{k.replace('_', '-')} {show(recorded[k])} -> {show(options[k])}"
                       for k in options if recorded[k] != options[k])
    raise UsageError(f"{out} holds a suite of {len(old[0])} cases; {what} would drop {len(dropped)} of them "
                     f"(by kind: {_counted(dropped, 'kind')}; by family: {_counted(dropped, 'family')}) and "
                     f"was asked with other options than the suite's ({differ}): pass --replace to replace it, "
                     f"or write to another directory")
