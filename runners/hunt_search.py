"""The search of `opconform hunt`: each family's slices in turn, pass after pass, hypothesis drawing examples;
a new finding shrunk and recorded, the known ones passing; the first probe of each (group, undefined reasons)
run and kept."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
import zlib

from generator import families as family_registry
from generator.case import Case
from runners.hunt_bench import Bench
from runners.hunt_findings import FamilyStats, Finding, Probe, describe_signature, group_of, same_finding, signature
from runners.hunt_plan import Plan, select
from runners.hunt_progress import Progress, clock
from runners.results import CRASH, INVALID_CASE, PASS, PROBE, TIMEOUT, UNSUPPORTED

SUPPORT_PROBE = 200  # a family none of whose examples the backend supports, out of at least this many: say so
SHRINK_GRACE = 30.0  # seconds a shrink may run past --budget
COSTLY = {CRASH: 8, TIMEOUT: 2}  # shrink steps that may end in a worker restart / a timeout, per finding
FIRST_TURN = 4  # examples of one slice of a family in the first pass (doubled each pass; generator/hunting.py)
MAX_PROBES_PER_FAMILY = 50


class _Found(Exception):
    """Raised inside the hypothesis test for a new finding (hypothesis then shrinks it)."""


class _ShrunkEnough(BaseException):
    """Ends a shrink whose steps are costly (crashes, timeouts): the smallest failing example so far is kept."""


class _OutOfBudget(BaseException):
    """Ends the search of a family when its time is up (a BaseException: hypothesis does not take it for a
    failing example)."""


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
            count += f", {clock(deadline - time.monotonic())} left"
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
