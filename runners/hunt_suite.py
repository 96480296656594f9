"""Writing `opconform hunt`'s DIR: a suite of one case per finding and per kept probe, each case.json with
its provenance ("hunt"); DIR checked before the search (new, empty, or an earlier hunt's suite)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from generator.case import Case
from runners.escape import printable
from runners.hunt_bench import Bench
from runners.hunt_findings import describe_signature
from runners.hunt_plan import HuntUsageError, Plan
from runners.hunt_search import Hunt
from runners.results import FAIL, Result

HUNT_FORMAT = "opconform-hunt/1"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def provenance(plan: Plan, bench: Bench, example: int | None, r: Result | None, **extra) -> dict:
    import hypothesis

    name, version, settings = bench.identity or (plan.backend, "unknown", {})
    out = {"format": HUNT_FORMAT, "found_by": "opconform hunt", "backend": name, "backend_version": version,
           "backend_settings": settings, "backend_options": plan.options, "tier": plan.tier,
           "hypothesis": hypothesis.__version__, "seed": plan.seed, "example": example}
    if r is not None:
        out["verdict"] = r.verdict
        out["message"] = r.message[:4000]
        if r.diagnosis is not None:
            out["diagnosis"] = sorted(r.diagnosis)
    out.update(extra)
    return out


def named(case: Case, name: str, flags: list[str], hunt_meta: dict) -> Case:
    meta = dict(case.meta, flags=sorted(set(case.meta.get("flags", [])) | set(flags)), hunt=hunt_meta)
    return Case(name=name, kind=case.kind, model=case.model, inputs=case.inputs, outputs=case.outputs, meta=meta,
                twin=case.twin)


def _unique_name(base: str, taken: set[str]) -> str:
    base = base if base.startswith("test_") else f"test_{base}"
    base = _slug(base)
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


def suite_cases(hunt: Hunt) -> list[Case]:
    """The cases DIR holds: one per finding (named for its case and what it shows), one per kept probe."""
    plan, taken, out = hunt.plan, set(), []
    for i, f in enumerate(hunt.findings, 1):
        what = f.result.verdict if f.result.verdict != FAIL else "mismatch"
        name = _unique_name(f"{f.case.name.removesuffix('_hunt')}_{what}", taken)
        meta = provenance(plan, hunt.bench, f.example, f.result, finding=i, group=f.group,
                          signature=describe_signature(f.signature), hits=f.hits, flaky=f.flaky,
                          shrink_steps=f.shrink_steps)
        out.append(named(f.case, name, ["hunt"], meta))
    for p in hunt.probes.values():
        name = _unique_name(p.case.name.removesuffix("_hunt_probe") + "_probe", taken)
        observed = p.result.outputs if p.result is not None and p.result.outputs is not None else None
        meta = provenance(plan, hunt.bench, None, None, group=p.group, undefined=list(p.reasons),
                          observed=observed, observed_verdict=p.result.verdict if p.result else None,
                          observed_message=(p.result.message[:2000] if p.result else None))
        out.append(named(p.case, name, ["hunt"], meta))
    return out


def is_hunt_suite(path: Path) -> bool:
    from generator.serialize import CaseError, is_suite, read_manifest

    try:
        return is_suite(path) and "hunt" in (read_manifest(path).get("options") or {})
    except (CaseError, AttributeError):
        return False


def refuse_link(out: Path) -> None:
    """A symbolic link DIR is refused whatever it points to: the suite would replace its target (outdir.replace
    follows a link), a directory the user did not name."""
    if out.is_symlink():
        raise HuntUsageError(printable(f"--out {out}: a symbolic link (to {os.readlink(out)}); name the directory "
                                       "itself"))


def check_out(out: Path) -> None:
    """DIR must be new, empty, or an earlier hunt's suite (it is replaced): refuse anything else before the
    search, not after it."""
    refuse_link(out)
    if not out.exists():
        parent = out.resolve().parent
        if not parent.is_dir():
            raise HuntUsageError(f"--out {out}: {parent} is not a directory")
        if not os.access(parent, os.W_OK):
            raise HuntUsageError(f"--out {out}: cannot write in {parent}")
        return
    if not out.is_dir():
        raise HuntUsageError(f"--out {out}: exists and is not a directory")
    if any(out.iterdir()) and not is_hunt_suite(out):
        raise HuntUsageError(f"--out {out}: not empty and not a suite written by opconform hunt (choose another "
                             "directory; an earlier hunt's is replaced)")
    if not os.access(out, os.W_OK):
        raise HuntUsageError(f"--out {out}: not writable")


def write_suite(hunt: Hunt, out: Path) -> int:
    from generator import outdir
    from generator.serialize import write_case, write_manifest

    cases = suite_cases(hunt)
    plan = hunt.plan
    name, version, settings = hunt.bench.identity or (plan.backend, "unknown", {})
    options = {"hunt": {"backend": name, "backend_version": version, "backend_settings": settings,
                        "backend_options": plan.options, "families": plan.families, "only": plan.only,
                        "seed": plan.seed,
                        "tier": plan.tier, "max_examples": plan.max_examples, "budget": plan.budget,
                        "max_opset": plan.max_opset,
                        "examples": {s.family: s.examples for s in hunt.stats}}}

    def build(target: Path) -> int:
        entries = []
        for case in cases:
            meta = write_case(case, target)
            entries.append({k: meta[k] for k in ("name", "kind", "op", "family", "opset", "params", "flags")
                            if k in meta})
        write_manifest(target, options, entries)
        return len(entries)

    refuse_link(out)  # again: DIR may have become one during the search (outdir.replace checks the rest)
    try:
        return outdir.replace(out, build, is_hunt_suite)
    except outdir.Refused as exc:
        raise HuntUsageError(str(exc)) from None
