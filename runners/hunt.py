"""`opconform hunt`: a live hypothesis search for discrepancies of one backend, each shrunk to a reproducer case
(DESIGN.md, "Runners"; docs/hunting.md).

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
"""

from __future__ import annotations

import fnmatch
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from generator import faults as fault_models
from generator import families as family_registry
from generator.case import Case
from runners.results import CRASH, ERROR, FAIL, INVALID_CASE, PASS, PROBE, TIMEOUT, UNSUPPORTED, Result
from runners.input_modes import FED, RunMode

HUNT_FORMAT = "opconform-hunt/1"
DEFAULT_MAX_EXAMPLES = 1000  # per family, when neither --max-examples nor --budget is given
SUPPORT_PROBE = 200  # a family none of whose examples the backend supports, out of at least this many: say so
SHRINK_GRACE = 30.0  # seconds a shrink may run past --budget
COSTLY = {CRASH: 8, TIMEOUT: 2}  # shrink steps that may end in a worker restart / a timeout, per finding
FIRST_TURN = 4  # examples of one slice of a family in the first pass (doubled each pass; generator/hunting.py)
MAX_PROBES_PER_FAMILY = 50


class HuntUsageError(Exception):
    """A bad option or target (one line; exit 2)."""


class _Found(Exception):
    """Raised inside the hypothesis test for a new finding (hypothesis then shrinks it)."""


class _ShrunkEnough(BaseException):
    """Ends a shrink whose steps are costly (crashes, timeouts): the smallest failing example so far is kept."""


class _OutOfBudget(BaseException):
    """Ends the search of a family when its time is up (a BaseException: hypothesis does not take it for a
    failing example)."""


# ---------------------------------------------------------------------------------------
# what a failure looks like
# ---------------------------------------------------------------------------------------
def _blank(text: str, width: int = 300) -> str:
    """A message with what varies from input to input blanked: quoted names, hex, numbers."""
    text = " ".join(str(text).split())
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"0x[0-9a-fA-F]+", "\0", text)
    text = re.sub(r"\d+(\.\d+)?([eE][+-]?\d+)?", "N", text)
    return text.replace("\0", "0x…")[:width]


def _number(v):
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def mismatch_class(m: dict) -> str:
    """How one mismatching element differs, in words that do not depend on its values."""
    e, a = _number(m.get("expected")), _number(m.get("actual"))
    if e is None or a is None:
        return "other text" if isinstance(m.get("actual"), str) else "not a number"
    if math.isnan(e) != math.isnan(a):
        return "NaN expected, a number returned" if math.isnan(e) else "NaN returned for a number"
    if math.isinf(e) != math.isinf(a):
        return "infinity expected, finite returned" if math.isinf(e) else "infinity returned for a finite value"
    if e == a:
        return "the sign of zero" if e == 0 else "the same value with other bits"
    if e == 0 or a == 0:
        return "zero returned" if a == 0 else "zero expected"
    if (e < 0) != (a < 0):
        return "the sign"
    if float(e).is_integer() and float(a).is_integer() and abs(a - e) == 1:
        return f"off by {a - e:+.0f}"
    return "larger magnitude" if abs(a) > abs(e) else "smaller magnitude"


def signature(r: Result) -> frozenset[str] | str:
    """The diagnosis (a set of fault names) where a fault model reproduces the outputs, else the shape of the
    failure as a string."""
    if r.verdict == FAIL and r.diagnosis:
        return frozenset(r.diagnosis)
    if r.verdict == FAIL and r.kind == "negative":
        return "accepts a model it must refuse"
    if r.verdict == FAIL and r.mismatches:
        return "; ".join(sorted({f"{m.get('output')}: {mismatch_class(m)}" for m in r.mismatches}))
    if r.verdict == FAIL:
        first = r.message.split(": ", 1)[-1].splitlines()[0] if r.message else ""
        return _blank(first)
    if r.verdict == ERROR:
        return f"error: {_blank(r.error or r.message)}"
    if r.verdict == CRASH:
        return f"crash: {r.error or 'the worker died'}"
    return r.verdict  # timeout


def describe_signature(sig: frozenset[str] | str) -> str:
    return "consistent with " + ", ".join(sorted(sig)) if isinstance(sig, frozenset) else sig


def same_finding(a: frozenset[str] | str, b: frozenset[str] | str) -> bool:
    """One cause: equal shapes, or diagnoses that share a fault model."""
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return bool(a & b)
    return a == b


def group_of(meta: dict) -> str:
    """The parameter group of a case: its family's fault-module group_key, else its params and opset."""
    mod = fault_models.module(meta["family"])
    if mod is not None:
        try:
            return mod.group_key(meta)
        except Exception:  # noqa: BLE001 - a group the fault module does not know: fall back
            pass
    return json.dumps(fault_models.group_params(meta), sort_keys=True)


@dataclass
class Finding:
    family: str
    group: str
    signature: frozenset[str] | str
    case: Case
    result: Result
    args: dict | None
    example: int  # how many examples of its family had run when it was found
    hits: int = 1  # examples of the hunt it explains (after the first, while searching for others)
    shrink_steps: int = 0  # runs hypothesis made to shrink it
    flaky: bool = False  # the backend did not fail the same way again when hypothesis replayed it


@dataclass
class Probe:
    family: str
    group: str
    reasons: tuple[str, ...]
    case: Case
    result: Result | None


@dataclass
class FamilyStats:
    family: str
    examples: int = 0  # generated examples run on the backend
    shrink_steps: int = 0  # runs while shrinking
    verdicts: dict = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""
    t0: float = field(default_factory=time.monotonic)


# ---------------------------------------------------------------------------------------
# running one example on the backend
# ---------------------------------------------------------------------------------------
class Bench:
    """Runs cases on the backend through the isolated worker, one scratch directory per case (the worker
    caches a prepared model by directory)."""

    def __init__(self, spec: str, options: dict[str, str] | None, tier: str, timeout: float, memory,
                 isolation: str = "process", mode: RunMode = FED):
        from runners.backends.registry import get_backend
        from runners.worker import IsolatedRunner

        self.tier = tier
        self.mode = mode
        # isolation "none": the backend runs in this process (debugging a backend; the project's own tests)
        self.runner = IsolatedRunner(spec, timeout, memory=memory, options=options, mode=mode) if isolation == "process" \
            else None
        self.backend = None if self.runner is not None else get_backend(spec, options)
        self.scratch = Path(tempfile.mkdtemp(prefix="opconform-hunt-"))
        self.n = 0
        self.identity: tuple[str, str, dict] | None = None

    def run(self, case: Case) -> Result:
        from generator.serialize import write_case

        self.n += 1
        suite = self.scratch / f"e{self.n}"
        write_case(case, suite)
        case_dir = suite / case.kind / case.name

        def stub(i: int) -> Result:
            name, version, settings = self.identity or ("?", "?", {})
            return Result(case=case.name, dataset=i, kind=case.kind, verdict=ERROR, message="", backend=name,
                          backend_version=version, tier=self.tier, settings=settings)

        try:
            what, answer = self._run(case_dir, stub)
        finally:
            shutil.rmtree(suite, ignore_errors=True)
        if what == "case-error":  # the strategy built a case the reader refuses: an opconform bug
            path, problem = answer
            raise RuntimeError(f"opconform built an invalid case ({case.name}): {path}: {problem}")
        if self.identity is None and answer.verdict not in (CRASH, TIMEOUT):
            self.identity = (answer.backend, answer.backend_version, answer.settings)
        return answer

    def _run(self, case_dir: Path, stub) -> tuple[str, object]:
        if self.runner is not None:
            return self.runner.run(case_dir, 0, self.tier, stub)
        from generator.serialize import CaseError, read_case
        from runners.execute import run_case_dataset

        try:
            loaded = read_case(case_dir)
        except CaseError as exc:
            return "case-error", (str(exc.path), exc.problem)
        return "result", run_case_dataset(self.backend, loaded, 0, self.tier, {}, self.mode)

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


# ---------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------
class Progress:
    """One line on a terminal, redrawn; a line every `every` seconds in a log."""

    def __init__(self, stream=None, every: float = 10.0):
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = 0.25 if self.tty else every
        self.last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
@dataclass
class Plan:
    backend: str
    options: dict[str, str]
    families: list[str]
    max_examples: int | None
    budget: float | None  # seconds per family
    seed: int
    tier: str
    max_opset: int
    database: Path | None
    only: list[str] = field(default_factory=list)  # globs of slice labels (--only); [] = every slice
    mode: RunMode = FED  # how each example's model is built (--inputs, --shapes; runners/input_modes.py)


def select(slices: dict, only: list[str]) -> dict:
    """The slices whose label matches one of the globs (all of them without globs)."""
    if not only:
        return slices
    return {label: s for label, s in slices.items() if any(fnmatch.fnmatchcase(label, g) for g in only)}


def check_only(families: list[str], only: list[str], max_opset: int) -> None:
    """Every family hunted must have a slice --only selects (else the hunt would search nothing there)."""
    from generator.hunting import slices_of

    if not only:
        return
    for name in families:
        labels = list(slices_of(family_registry.load(name), max_opset))
        if not select(dict.fromkeys(labels), only):
            shown = ", ".join(labels[:6]) + (", ..." if len(labels) > 6 else "")
            raise HuntUsageError(f"--only {' '.join(only)}: no slice of {name} matches (its slices: {shown})")


class Hunt:
    def __init__(self, plan: Plan, bench: Bench, progress: Progress):
        self.plan, self.bench, self.progress = plan, bench, progress
        self.findings: list[Finding] = []
        self.probes: dict[tuple, Probe] = {}
        self.seen: set[bytes] = set()  # examples run that showed nothing new (by their args)
        self.stats: list[FamilyStats] = []

    def known(self, family: str, group: str, sig) -> Finding | None:
        for f in self.findings:
            if f.family == family and f.group == group and same_finding(f.signature, sig):
                return f
        return None

    def family(self, name: str) -> FamilyStats:
        """Hunt one family: its slices in turn, pass after pass, until the examples or the time run out or every
        slice's space is exhausted."""
        from generator.hunting import slices_of

        slices = select(slices_of(family_registry.load(name), self.plan.max_opset), self.plan.only)
        stats = FamilyStats(name)
        self.stats.append(stats)
        deadline = stats.t0 + self.plan.budget if self.plan.budget is not None else math.inf
        limit = self.plan.max_examples
        exhausted: set[str] = set()
        supported = [0]
        # breadth first: every slice gets its turn before any gets more (in an order of the seed's, so that a
        # run that stops half-way through a pass has searched all over the family); each pass doubles the turn
        order = sorted(slices, key=lambda label: zlib.crc32(f"{self.plan.seed}/{label}".encode()))
        first = FIRST_TURN if limit is None else max(1, min(FIRST_TURN, limit // len(slices)))
        try:
            for n in itertools.count():
                live = [label for label in order if label not in exhausted]
                if not live:
                    break
                for label in live:
                    left = math.inf if limit is None else limit - stats.examples
                    if left <= 0 or time.monotonic() >= deadline:
                        raise _OutOfBudget
                    quota = int(min(left, first << min(n, 20)))
                    if self._slice(name, label, slices[label], stats, deadline, quota, supported, n) < quota:
                        exhausted.add(label)  # hypothesis has tried all there is to try
        except _OutOfBudget:
            pass
        stats.seconds = time.monotonic() - stats.t0
        if stats.examples >= SUPPORT_PROBE and supported[0] == 0:
            stats.note = f"the backend supports none of the {stats.examples} examples"
        return stats

    def _slice(self, name: str, label: str, strategy, stats: FamilyStats, deadline: float, quota: int,
               supported: list, n: int) -> int:
        """Up to `quota` examples of one slice, in hypothesis runs that each end with a new finding (shrunk
        and recorded) or without one (then the slice is done for this pass); how many examples ran."""
        ran = rounds = 0
        while True:
            before = stats.examples
            found = self._round(name, label, strategy, stats, deadline, quota - ran, supported, n, rounds)
            ran += stats.examples - before
            if not found or ran >= quota:
                return ran
            rounds += 1

    def _round(self, name: str, label: str, strategy, stats: FamilyStats, deadline: float, quota: int,
               supported: list, n: int, rounds: int) -> bool:
        """One hypothesis run of at most `quota` examples: True when it ended with a new finding."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed, settings
        from hypothesis.errors import Flaky

        state = {"last": None, "shrinking": False, "ran": 0, "calls": 0, "costly": 0, "steps": 0}

        @settings(max_examples=quota + 1, deadline=None, database=self._database(),  # + the simplest example
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  verbosity=Verbosity.quiet, print_blob=False,
                  phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink))
        @seed(zlib.crc32(f"{self.plan.seed}/{name}/{label}/{n}/{rounds}".encode()))  # below settings: keeps the database
        @given(strategy)
        def run(example):
            seen = self._seen_key(name, example)
            if not state["shrinking"]:
                if time.monotonic() >= deadline:
                    raise _OutOfBudget
                if state["ran"] >= quota:
                    return
                if seen in self.seen:  # hypothesis draws the same again (its simplest example, first in every
                    reject()          # run; copies of what it mutates): not run twice
                if state["calls"] or n or rounds:  # a slice's very first example is hypothesis' simplest one: run
                    state["ran"] += 1              # it, but outside the slice's turn (a turn of one would be spent
                state["calls"] += 1                # on x = [0] in every slice)
                stats.examples += 1
            else:
                if time.monotonic() >= deadline + SHRINK_GRACE:
                    raise _ShrunkEnough  # the budget is spent: keep the smallest failing example so far
                stats.shrink_steps += 1
                state["steps"] += 1
            self._show(name, stats, deadline)
            hit = self._judge(name, example, stats, supported, state["shrinking"])
            if hit is not None and state["shrinking"] and hit[1].verdict in COSTLY:
                # each step that still crashes restarts the worker; one that still hangs waits --case-timeout:
                # past a few, the shrink keeps what it has
                state["costly"] += 1
                if state["costly"] > COSTLY[hit[1].verdict]:
                    raise _ShrunkEnough
            if hit is not None:
                state["last"] = hit
                state["shrinking"] = True
                raise _Found()
            if seen is not None:
                self.seen.add(seen)  # passed, unsupported or a known finding: the same input says nothing new

        # the examples a run saves are replayed by the run of the same slice and round of a later hunt
        run._hypothesis_internal_database_key = f"opconform-hunt/{name}/{label}/{rounds}".encode()
        try:
            run()
        except (_Found, Flaky, _ShrunkEnough) as exc:
            if state["last"] is None:
                raise
            self._record(name, state["last"], stats, flaky=isinstance(exc, Flaky), steps=state["steps"])
            return True
        return False

    @staticmethod
    def _seen_key(name: str, example) -> bytes | None:
        if example.args is None:
            return None
        return hashlib.sha1(f"{name}/{json.dumps(example.args, sort_keys=True)}".encode()).digest()

    def _database(self):
        if self.plan.database is None:
            return None
        from hypothesis.database import DirectoryBasedExampleDatabase

        return DirectoryBasedExampleDatabase(str(self.plan.database))

    def _show(self, name: str, stats: FamilyStats, deadline: float) -> None:
        rate = stats.examples / max(time.monotonic() - stats.t0, 1e-9)
        count = f"{stats.examples} examples"
        if self.plan.max_examples:
            count = f"{stats.examples} of {self.plan.max_examples} examples"
        if deadline != math.inf:
            count += f", {_clock(deadline - time.monotonic())} left"
        mine = sum(1 for f in self.findings if f.family == name)
        self.progress.show(f"hunt {name}: {count}, {rate:.0f}/s, {mine} finding(s) ({len(self.findings)} in all)")

    def _judge(self, name: str, example, stats: FamilyStats, supported: list, shrinking: bool):
        """Run one example; a new finding as (case, result, group, signature, args), else None."""
        if example.probe is not None and not shrinking:
            self._probe(name, example.probe)
        case = example.case
        if case is None:
            return None
        r = self.bench.run(case)
        if not shrinking:
            stats.verdicts[r.verdict] = stats.verdicts.get(r.verdict, 0) + 1
        if r.verdict == INVALID_CASE:
            raise RuntimeError(f"opconform built an invalid case: {r.message}")
        if r.verdict != UNSUPPORTED:
            supported[0] += 1
        if r.verdict in (PASS, UNSUPPORTED, PROBE):
            return None
        group = group_of(case.meta)
        sig = signature(r)
        old = self.known(name, group, sig)
        if old is not None:
            old.hits += 1
            return None
        return case, r, group, sig, example.args

    def _record(self, name: str, hit, stats: FamilyStats, flaky: bool, steps: int) -> None:
        case, r, group, sig, args = hit
        self.findings.append(Finding(name, group, sig, case, r, args, stats.examples, flaky=flaky,
                                     shrink_steps=steps))
        self.progress.show(f"hunt {name}: finding {len(self.findings)}: {group}: {describe_signature(sig)}",
                           force=True)

    def _probe(self, name: str, probe: Case) -> None:
        key = (name, group_of(probe.meta), tuple(probe.meta.get("undefined") or ()))
        if key in self.probes or sum(1 for k in self.probes if k[0] == name) >= MAX_PROBES_PER_FAMILY:
            return
        r = self.bench.run(probe)
        self.probes[key] = Probe(name, key[1], key[2], probe, r)


# ---------------------------------------------------------------------------------------
# writing DIR
# ---------------------------------------------------------------------------------------
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


def check_out(out: Path) -> None:
    """DIR must be new, empty, or an earlier hunt's suite (it is replaced): refuse anything else before the
    search, not after it."""
    if out.is_symlink() and not out.exists():
        raise HuntUsageError(f"--out {out}: a dangling symbolic link")
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

    try:
        return outdir.replace(out, build, is_hunt_suite)
    except outdir.Refused as exc:
        raise HuntUsageError(str(exc)) from None


def keep(hunt: Hunt) -> list[str]:
    """Add the findings to the committed witness catalogue ("hunted"); lines saying what was kept."""
    from generator import witness

    lines, by_family = [], {}
    for f in hunt.findings:
        by_family.setdefault(f.family, []).append(f)
    for family, found in sorted(by_family.items()):
        module = family_registry.load(family)
        if getattr(module, "rebuild", None) is None:
            lines.append(f"{family}: not kept ({len(found)} finding(s)): the family has no rebuild(args)")
            continue
        catalogue = witness.load(family)
        hunted = catalogue.setdefault("hunted", [])
        have = {json.dumps(e["args"], sort_keys=True) for e in hunted}
        added = 0
        for f in found:
            if f.args is None:
                continue
            text = json.dumps(f.args, sort_keys=True)
            if text in have:
                continue
            have.add(text)
            digest = hashlib.sha256(text.encode()).hexdigest()[:10]
            name, version, settings = hunt.bench.identity or (hunt.plan.backend, "unknown", {})
            hunted.append({"name": f"hunted_{digest}", "group": f.group, "args": f.args,
                           "found": {"backend": name, "backend_version": version, "verdict": f.result.verdict,
                                     "signature": describe_signature(f.signature)}})
            added += 1
        hunted.sort(key=lambda e: e["name"])
        path = witness.save(catalogue)
        lines.append(f"{family}: {added} finding(s) added to {path}")
    return lines


# ---------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------
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
        lines.append(f"hunt {s.family}: {s.examples} examples in {_clock(s.seconds)} ({verdicts or 'none run'}), "
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
