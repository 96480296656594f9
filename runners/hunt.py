"""`opconform hunt`: a live hypothesis search for discrepancies of one backend, each shrunk to a reproducer case
(docs/design.md, "Runners"; docs/hunting.md).

For each family with a hunt strategy (generator/hunting.py: the family's hunt(max_opset)), hypothesis draws
examples: a case with one data set, expected outputs from the reference, and the drawn inputs the spec
leaves undefined apart (a probe). Each case is written to a scratch directory and run on the backend in the
isolated worker (runners/worker.py) through the runner's own verdict code (runners/execute.py), so a crash or
a hang is a verdict like the others.

A data set that fails (fail, error, crash, timeout; a negative case accepted) is a finding unless an earlier
finding already explains it. Findings are told apart by (family, parameter group, signature):
  parameter group  the family's fault module's group_key (a Cast (from, to, saturate, round_mode, opset), ...)
  signature        the fault models that reproduce the outputs (runners/diagnose.py); two findings whose
                   sets share a fault are one. Where no fault model matches, the shape of the mismatch
                   (per output, how the values differ: off by +1, NaN for a number, flushed to zero ...);
                   for an error, its message with numbers and names blanked; a crash's signal; a timeout
When a new one turns up hypothesis shrinks it (fewer elements, simpler values, the simplest group that
still shows the same signature ... or another new one), and the search goes on for the next, with the known
ones passing. Undefined inputs are never findings: the first probe of each (group, undefined reasons) is run
and kept with what the backend returned, so that runs of several backends on DIR show where they diverge.

DIR becomes a suite (manifest.json with the hunt's options, node/ negative/ probe/ cases), each case.json with
"hunt": its provenance (backend, version, settings, hypothesis version and seed, the example count at which it
was found, the verdict, the signature and the diagnosis). `pytest DIR --backend B` reproduces the findings (with
the hunt's --inputs / --shapes, which backend_settings records);
`pytest DIR --backend opconform` passes. --keep adds the findings to the committed witness catalogue
(generator/witness: "hunted"), whence gen-cases rebuilds them from what was drawn.

This module is the command; the parts: hunt_plan.py (the options), hunt_search.py (the search and the shrinking),
hunt_bench.py (running an example), hunt_findings.py (signatures, findings), hunt_suite.py (writing DIR),
hunt_keep.py (--keep), hunt_progress.py.
"""

from __future__ import annotations

from pathlib import Path

from generator import families as family_registry
from runners.hunt_bench import Bench
from runners.hunt_findings import Finding, describe_signature, same_finding
from runners.hunt_keep import keep
from runners.hunt_plan import HuntUsageError, Plan
from runners.hunt_progress import Progress, clock
from runners.hunt_search import Hunt
from runners.hunt_suite import write_suite

# read from this module by runners/cli.py (not this module's to change)


def huntable() -> list[str]:
    return [n for n in sorted(family_registry.FAMILIES) if hasattr(family_registry.load(n), "hunt")]


def check_backend(spec: str, options: dict[str, str]) -> None:
    from runners.backends.base import UnknownBackend
    from runners.backends.registry import get_backend

    try:
        get_backend(spec, options or None)
    except UnknownBackend as exc:
        raise HuntUsageError(" ".join(str(exc).split())) from None
    except Exception as exc:  # noqa: BLE001 - a backend that fails to load is a user-facing error
        raise HuntUsageError(f"--backend {spec}: cannot load: {type(exc).__name__}: {' '.join(str(exc).split())}") \
            from None


def summary(hunt: Hunt) -> list[str]:
    lines = []
    for s in hunt.stats:
        mine = [f for f in hunt.findings if f.family == s.family]
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(s.verdicts.items()))
        lines.append(f"hunt {s.family}: {s.examples} examples in {clock(s.seconds)} ({verdicts or 'none run'}), "
                     f"{s.shrink_steps} shrink steps, {len(mine)} finding(s)" + (f"; {s.note}" if s.note else ""))
    for i, f in enumerate(hunt.findings, 1):
        lines.append(f"  finding {i}: {f.family} {f.group}: {describe_signature(f.signature)} "
                     f"({f.result.verdict}; {f.hits} example(s)){' (flaky)' if f.flaky else ''}")
    causes = causes_of(hunt.findings)
    if len(causes) < len(hunt.findings):
        lines.append(f"hunt: {len(hunt.findings)} findings, {len(causes)} distinct signatures:")
        lines += [f"  {describe_signature(sig)}: {n} group(s)" for sig, n in causes]
    return lines


def causes_of(findings: list[Finding]) -> list[tuple]:
    """(signature, how many findings share it) across groups, most first: one cause a backend shows in many
    parameter groups reads as one line (diagnoses sharing a fault model count as one)."""
    causes: list[list] = []
    for f in findings:
        for c in causes:
            if c[0] == f.family and same_finding(c[1], f.signature):
                c[2] += 1
                break
        else:
            causes.append([f.family, f.signature, 1])
    return sorted(((sig, n) for _, sig, n in causes), key=lambda c: -c[1])


def run(plan: Plan, out: Path, keep_findings: bool, timeout: float, memory, stream=None,
        isolation: str = "process") -> int:
    from generator.hypothesis_home import hypothesis_home

    progress = Progress(stream)
    bench = Bench(plan.backend, plan.options or None, plan.tier, timeout, memory, isolation, plan.mode)
    hunt = Hunt(plan, bench, progress)
    interrupted = False
    try:
        with hypothesis_home():
            for name in plan.families:
                try:
                    hunt.family(name)
                except KeyboardInterrupt:
                    interrupted = True
                    break
        n = write_suite(hunt, out)
    finally:
        bench.close()
    for line in summary(hunt):
        progress.done(line)
    progress.done(f"hunt: wrote {n} case(s) to {out} ({len(hunt.findings)} finding(s), {len(hunt.probes)} probe(s))"
                  + ("; interrupted" if interrupted else ""))
    if keep_findings:
        for line in keep(hunt):
            progress.done(f"hunt: keep: {line}")
    if interrupted:
        return 130
    return 1 if hunt.findings else 0
