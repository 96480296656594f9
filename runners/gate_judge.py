"""The gate's judgement of a run against a baseline: what each item is (a regression, lost support, a known
failure, ...) and what of the baseline the run did not judge. One place, so that the gate (runners/session.py,
at run time) and the report's baseline view (runners/report_baseline.py, from a results file) give the same
counts, item for item.

An item's class comes from its verdict now and the verdict the baseline recorded for the same content of its case
(runners.gate.baseline_verdict; None for a new or changed case):

    new failure   failing, and the baseline has no verdict for it (a new case, or one whose content changed)
    worse         failing worse than recorded (pass/probe < unsupported < fail < error < invalid-case < timeout
                  < crash), an unsupported item now failing included
    lost support  recorded pass / probe, now unsupported: the backend no longer implements what it did
    now refused   recorded failing, now unsupported: not an improvement (the failure is no longer judged), not a
                  regression either (the backend says so itself); inside a claim (--claims) a refusal is a fail
    better        a failure fixed (now pass / probe) or milder, or an unsupported item now implemented
    known         failing, no worse than recorded
    same          nothing to say: the same passing or unsupported verdict, a new passing or unsupported item

The first three are regressions: the gate fails on any. So it does on a vanished item: one the baseline judged
(any ranked verdict but unsupported) that lies in the run's scope and that the run did not judge (its case left
the suite, a skips file skipped it, its family or data set is gone). The scope (Scope) is what the run selected:
with whole suites as its paths (no -k / -m / node ids), every baseline item of the selected families and shard;
otherwise the baseline items of the cases it collected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runners.gate import RANK, baseline_verdict, item_key, no_verdict_reason, shard_of
from runners.results import FAIL, PASS, PROBE, UNSUPPORTED

NEW, WORSE, LOST, REFUSED, BETTER, KNOWN, SAME = ("new failure", "worse", "lost support", "now refused", "better",
                                                  "known", "same")
REGRESSIONS = (NEW, WORSE, LOST)
CLASSES = (NEW, WORSE, LOST, REFUSED, BETTER, KNOWN, SAME)


def _failing(verdict: str | None) -> bool:
    return verdict in RANK and RANK[verdict] >= RANK[FAIL]


def classify(verdict: str, was: str | None) -> str:
    """The class of an item whose verdict is `verdict` against the baseline's `was` (None: no verdict for
    this content of the case). A verdict the gate does not rank (skipped) is SAME: nothing was judged."""
    if verdict not in RANK:
        return SAME
    if was not in RANK:
        return NEW if _failing(verdict) else SAME
    if verdict == UNSUPPORTED and was in (PASS, PROBE):
        return LOST
    if verdict == UNSUPPORTED and _failing(was):
        return REFUSED
    if RANK[verdict] > RANK[was]:
        return WORSE
    if RANK[verdict] < RANK[was]:
        return BETTER
    return KNOWN if _failing(verdict) else SAME


def judge_item(baseline: dict, key: str, verdict: str, content: str | None) -> tuple[str, str]:
    """(class, what the baseline had: its verdict, or "new" / "changed" where it has none for this content)."""
    was = baseline_verdict(baseline, key, content)
    return classify(verdict, was), was or no_verdict_reason(baseline, key)


@dataclass(frozen=True)
class Scope:
    """What a run selected, for the baseline items it should have judged (module docstring)."""

    whole: bool  # the paths are whole suites and nothing else narrowed the run (-k, -m, node ids)
    families: frozenset[str] = frozenset()  # --family (empty: every family)
    shard: tuple[int, int] | None = None  # --shard I/N
    more_shards: frozenset[int] = frozenset()  # shards of the same N merged into one report column

    def covers(self, key: str, entry: dict, collected: set[str]) -> bool:
        """Whether baseline item `key` (its entry: "family" where recorded) lies in the scope; `collected`: the
        names of the cases the run collected (its items' cases)."""
        case = key.rpartition("[")[0]
        if case in collected:
            return True
        if not self.whole:
            return False
        if self.shard is not None and shard_of(case, self.shard[1]) not in {self.shard[0], *self.more_shards}:
            return False
        return not self.families or entry.get("family") in self.families

    @classmethod
    def of_selection(cls, selection: dict | None) -> "Scope":
        """The scope a results file's "selection" describes (runners.summary.selection; merged shards of one run
        say "1/4, 3/4"). A shard that does not read as I/N makes the scope the collected cases alone."""
        selection = selection or {}
        shards = [p.strip().split("/") for p in (selection.get("shard") or "").split(",") if p.strip()]
        if not all(len(p) == 2 and p[0].isdigit() and p[1].isdigit() for p in shards) or len({p[1] for p in shards}) > 1:
            return cls(whole=False)
        parsed = sorted((int(i), int(n)) for i, n in shards)
        return cls(whole=selection.get("whole") is True, families=frozenset(selection.get("family") or ()),
                   shard=parsed[0] if parsed else None, more_shards=frozenset(i for i, _ in parsed[1:]))


@dataclass
class Tally:
    """The gate's view of one run: each item's class (with a line naming it), and the vanished items."""

    baseline: dict
    lines: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CLASSES})
    seen: dict[str, str] = field(default_factory=dict)  # item key -> its verdict (every item noted, skipped too)
    vanished: list[tuple[str, str]] = field(default_factory=list)  # (key, why), set by finish()

    def count(self, key: str, cls: str, was: str, verdict: str, words: str = "", cpu: str = "") -> None:
        """Note one item of the run: its class (judge_item's), what the baseline had, its verdict, for an
        unsupported item the backend's words, and the CPU paths of the fault models its diagnosis names."""
        self.seen[key] = verdict
        if cls == SAME:
            return
        if cls == LOST:
            line = f"{key}: lost support (baseline: {was}): {words or 'unsupported'}"
        elif cls == REFUSED:
            line = f"{key}: now refused (baseline: {was}): {words or 'unsupported'}"
        elif cls == BETTER:
            line = f"{key}: {verdict} (baseline: {was})"
        else:
            line = f"{key} ({verdict}, baseline: {was})"
        self.lines[cls].append(line + (f" [depends on the CPU: {cpu}]" if cpu else ""))

    def finish(self, scope: Scope) -> None:
        """Find the vanished items: in the scope, judged by the baseline, not judged by the run."""
        collected = {k.rpartition("[")[0] for k in self.seen}
        out = []
        for key, entry in self.baseline["items"].items():
            if entry["verdict"] == UNSUPPORTED or self.seen.get(key) in RANK:
                continue
            if scope.covers(key, entry, collected):
                why = "skipped" if key in self.seen else ("its data set is gone" if key.rpartition("[")[0] in collected
                                                          else "its case is not in the run")
                out.append((key, why))
        self.vanished = sorted(out)

    @property
    def regressions(self) -> int:
        return sum(len(self.lines[c]) for c in REGRESSIONS)

    @property
    def failed(self) -> bool:
        return self.regressions > 0 or bool(self.vanished)

    def counts(self) -> dict[str, int]:
        return {**{c: len(self.lines[c]) for c in CLASSES if c != SAME}, "vanished": len(self.vanished)}

    def vanished_by_family(self) -> list[str]:
        """The vanished items in a line per family ("cast: 2848 items (every item of the family the baseline
        judged)" or "cast: 3 items (test_a[0], ...)")."""
        families: dict[str, list[str]] = {}
        for key, _ in self.vanished:
            families.setdefault(self.baseline["items"][key].get("family") or "(family not recorded)", []).append(key)
        out = []
        for family, keys in sorted(families.items()):
            judged = sum(1 for e in self.baseline["items"].values()
                         if e.get("family") == family and e["verdict"] != UNSUPPORTED)
            whole = family != "(family not recorded)" and len(keys) == judged
            names = "every item of the family the baseline judged" if whole else ", ".join(keys[:3]) + (
                f", and {len(keys) - 3} more" if len(keys) > 3 else "")
            out.append(f"{family}: {len(keys)} item(s) ({names})")
        return out


def update_changes(records: list[dict], update: dict) -> dict[str, int]:
    """What an --update-baseline write recorded (runners.gate.write_baseline's answer): {class: items} for the
    classes other than SAME, "dropped" and "items"."""
    previous = update.get("previous") or {}
    out: dict[str, int] = {}
    for r in records:
        key = item_key(r["case"], r["dataset"])
        if key in previous:
            cls = classify(r["verdict"], previous[key])
            if cls != SAME:
                out[cls] = out.get(cls, 0) + 1
    return {**out, "dropped": update.get("dropped", 0), "items": update.get("items", 0)}
