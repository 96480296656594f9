"""One run of cases on a backend, without pytest: what both runners (the pytest plugin and `opconform run`)
share between reading the suite and writing the results. Running a data set (in the worker, or in this
process with --isolation none), checking that the case read is the one selected, the gate's judgement
against a baseline, and the counts the summary and the results file are made of.

An item is anything with case_dir, case_name, index and listed (its manifest entry, or None)."""

from __future__ import annotations

from pathlib import Path

from runners.escape import printable
from runners.suite_tree import checked_meta, disagreement, kind_of, relpath, str_or_none
from runners.tiers import count_tiers

MAX_BATCH = 64  # data sets of one case asked of the worker in one round trip, beyond the first


class RunCore:
    """The state of one run: the backend (its identity), how it is run, the baseline, and what was judged."""

    def __init__(self, backend, tier: str, mode=None, base: Path | None = None):
        from runners.execute import PreparedCache, backend_identity
        from runners.input_modes import DEFAULT

        self.backend = backend
        self.tier = tier
        self.base = base or Path.cwd()  # paths in messages are relative to it
        self.name, self.version, self.settings = backend_identity(backend)
        self.mode = mode or DEFAULT  # how each case's model is built (--inputs, --shapes, --max-opset)
        self.settings = {**self.settings, **self.mode.settings()}  # results of other modes are kept apart
        self.prepared = PreparedCache()
        self._cases: dict = {}  # case dir -> LoadedCase | CaseError (the last few)
        self.isolated = None  # runners.worker.IsolatedRunner unless --isolation none
        self.baseline: dict | None = None  # gate mode: the baseline read
        self.baseline_path: Path | None = None
        self.shard: tuple[int, int] | None = None
        self.families: frozenset[str] = frozenset()
        self.records: list[dict] = []
        self.tally = None  # gate mode: runners.gate_judge.Tally, each item's class against the baseline
        self.scope = None  # runners.gate_judge.Scope: what the run selected (set by the runner)
        self.claims = None  # --claims: runners.claims.Claims
        self.tier_counts: dict[str, dict[str, int]] = {}  # family -> data sets judged / passing per tier
        self.verdicts: dict[str, int] = {}  # verdict -> items (the summary's last line)

    @property
    def identity(self) -> dict:
        return {"name": self.name, "version": self.version, "settings": self.settings}

    @property
    def machine(self) -> dict:
        """This machine (runners.machine) and the backend's build where its adapter says (asked once)."""
        if self._machine is None:
            from runners.machine import machine

            self._machine = machine()
            try:
                build = self.backend.build() if hasattr(self.backend, "build") else None
            except Exception:  # noqa: BLE001 - a backend that cannot say records none
                build = None
            if build:
                self._machine["backend_build"] = str(build)
        return self._machine

    _machine = None

    def baseline_extra(self) -> dict:
        """What a baseline records beside its items: the machine it was written on."""
        return {"machine": self.machine}

    def elsewhere_line(self) -> str | None:
        """In gate mode, one line when the baseline was recorded on another machine class or backend version."""
        if self.baseline is None:
            return None
        from runners.machine import differences

        line = differences(self.baseline.get("machine"), self.baseline.get("backend"), self.machine, self.identity)
        return printable(line) if line else None

    # ---- running ----------------------------------------------------------------------
    def load(self, path: Path):
        from generator.serialize import CaseError, read_case

        key = str(path)
        if key not in self._cases:
            try:
                self._cases[key] = read_case(path)
            except CaseError as exc:
                self._cases[key] = exc
            while len(self._cases) > 4:
                self._cases.pop(next(iter(self._cases)))
        return self._cases[key]

    def execute(self, case_dir: Path, case_name: str, index: int, more: list[int] = (), then=None, worker=None):
        """The Result of data set `index` of the case. With a worker (`worker`, else the run's), `more` (further
        data sets of the case) and `then` ((case dir, case name, data sets) of the case to run next) are asked
        for in the same round trip. runners.worker.WorkerDied when the backend cannot load in a worker."""
        from generator.serialize import CaseError
        from runners.execute import invalid_case_result, run_case_dataset

        worker = worker if worker is not None else self.isolated
        if worker is not None:
            if then is not None:
                nxt_dir, nxt_name, nxt_indices = then
                then = (nxt_dir, nxt_indices, lambda i: self.stub(nxt_dir, nxt_name, i))
            what, answer = worker.run(case_dir, index, self.tier, lambda i: self.stub(case_dir, case_name, i),
                                             more=more, then=then)
            if what == "result":
                return answer
            path, problem = answer
            return invalid_case_result(case_name, index, kind_of(case_dir), f"{relpath(path, self.base)}: {problem}",
                                       self.backend, self.tier, self.mode)
        case = self.load(case_dir)
        if isinstance(case, CaseError):
            problem = f"{relpath(case.path, self.base)}: {case.problem}"
            return invalid_case_result(case_name, index, kind_of(case_dir), problem, self.backend, self.tier, self.mode)
        return run_case_dataset(self.backend, case, index, self.tier, self.prepared, self.mode)

    def judge(self, item, more: list[int] = (), then=None, worker=None):
        """Run the item and check the case read is the one selected (else invalid-case)."""
        from runners.execute import invalid_case_result

        result = self.execute(item.case_dir, item.case_name, item.index, more, then, worker)
        problem = disagreement(result, item.case_name, item.case_dir, item.listed)
        if problem is not None:
            where = relpath(item.case_dir / "case.json", self.base)
            result = invalid_case_result(item.case_name, item.index, kind_of(item.case_dir), f"{where}: {problem}",
                                         self.backend, self.tier)
        if self.claims is not None and result.verdict == "unsupported":
            self.claimed(result, item.case_dir)
        return result

    def claimed(self, r, case_dir: Path) -> None:
        """An unsupported node / graph item that a claim covers (--claims) becomes a fail naming the claim; its
        diagnosis (the fault models that refuse the same model) stays. Only the backend's own statement counts
        (its Unsupported, "Unsupported: ..."): the run's refusals (--max-opset, a twin under --inputs) are none.
        The case.json is read only then."""
        from runners.backends.base import Unsupported
        from runners.execute import unsupported_reason
        from runners.results import FAIL

        if not (r.error or "").startswith(f"{Unsupported.__name__}: "):
            return
        claim = self.claims.covering(checked_meta(case_dir))
        if claim is None:
            return
        r.verdict, r.tiers_met, r.claim = FAIL, [], printable(f"{claim.where}: {claim.text}")
        r.message = (f"claimed, refused: {unsupported_reason(r.error)} (claim {r.claim})\n{r.message}").rstrip("\n")

    def unread(self, case_name: str, kind: str, problem: str):
        """The invalid-case Result of a case that is not read (missing, or named badly)."""
        from runners.execute import invalid_case_result

        return invalid_case_result(case_name, 0, kind, problem, self.backend, self.tier, self.mode)

    def stub(self, case_dir: Path, case_name: str, index: int):
        """The record a crash or timeout of data set `index` of the case fills in: the case's identity
        from its case.json (read only then)."""
        from runners.results import ERROR, Result

        meta = checked_meta(case_dir)
        kind = meta.get("kind") if meta.get("kind") in ("node", "graph", "negative", "probe") else None
        return Result(case=case_name, dataset=index, kind=kind or kind_of(case_dir), verdict=ERROR,
                      message="", backend=self.name, backend_version=self.version, tier=self.tier,
                      settings=self.settings, op=str_or_none(meta.get("op")), family=str_or_none(meta.get("family")),
                      params=meta.get("params") if isinstance(meta.get("params"), dict) else None,
                      opset=meta.get("opset") if type(meta.get("opset")) is int else None)

    def skipped(self, case_name: str, index: int, case_dir: Path, reason: str) -> dict:
        """The record of an item not run (a skips file names it)."""
        from runners.results import SKIPPED, Result

        return Result(case=case_name, dataset=index, kind=kind_of(case_dir), verdict=SKIPPED, message=reason,
                      backend=self.name, backend_version=self.version, tier=self.tier,
                      settings=self.settings).to_record()

    # ---- the gate ---------------------------------------------------------------------
    def gate(self, case_name: str, index: int, r) -> tuple[list[tuple[str, str]], str | None]:
        """In gate mode, the item's class against the baseline (runners.gate_judge): a failing item no worse
        than the baseline is an xfail; a regression fails, its message saying what the baseline had: a worse
        or new failure, or lost support (pass / probe -> unsupported, which fails although its verdict stays
        unsupported). The baseline's verdict counts only for the case content it was recorded for: a changed
        case is judged as a new one.

        Returns (properties to note: opconform_gate (the class), opconform_baseline (what the baseline had),
        opconform_words (an unsupported item's reason), opconform_regression (for a regression); the xfail
        reason or None)."""
        if self.baseline is None:
            return [], None
        from runners.execute import unsupported_reason
        from runners.gate import item_key
        from runners.gate_judge import LOST, NEW, REGRESSIONS, judge_item
        from runners.results import UNSUPPORTED

        cls, was = judge_item(self.baseline, item_key(case_name, index), r.verdict, r.content)
        props = [("opconform_gate", cls), ("opconform_baseline", was)]
        words = unsupported_reason(r.error) if r.verdict == UNSUPPORTED else ""
        if words:
            props.append(("opconform_words", words))
        if r.diagnosis and cls != "same":
            from runners.diagnose import cpu_paths

            cpu = "; ".join(cpu_paths(r.diagnosis))
            if cpu:
                props.append(("opconform_cpu", cpu))  # the gate's line says the item depends on the CPU
        if cls in REGRESSIONS:
            why = {"new": "has no verdict (a new case)",
                   "changed": "has a verdict for other content of the case (the case changed)"}
            props.append(("opconform_regression", was))
            if cls == LOST:
                r.message = f"regression: lost support (baseline {was}): {words}\n{r.message}".rstrip("\n")
            else:
                r.message = f"regression: {r.verdict}, baseline {why[was] if cls == NEW else was}\n{r.message}"
            return props, None
        return props, printable(f"baseline: {was}") if r.failed else None  # known, or milder than recorded

    # ---- counting (what the summary and the results file are made of) ----------------
    def note(self, name: str, verdict: str | None, props: dict, record: dict | None = None,
             tiers: list | None = None) -> None:
        """One item's report: its verdict, record, tiers-met entry, and the gate's view of it (name: the
        item's name, `case[i]`; props: its opconform_* properties, present once it ran)."""
        if verdict is not None:
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        if record is not None:
            self.records.append(record)
        if tiers is not None:
            count_tiers(self.tier_counts, *tiers)
        if self.baseline is not None and verdict is not None:
            if self.tally is None:
                from runners.gate_judge import Tally

                self.tally = Tally(self.baseline)
            if "opconform_gate" in props:
                self.tally.count(name, props["opconform_gate"], props.get("opconform_baseline"), verdict,
                                 props.get("opconform_words", ""), props.get("opconform_cpu", ""))
            else:
                self.tally.seen.setdefault(name, verdict)  # skipped (not run): for the vanished items

    def finish_gate(self):
        """In gate mode, at the run's end: the tally with its vanished items found (runners.gate_judge.Scope);
        None without a baseline."""
        if self.baseline is None:
            return None
        from runners.gate_judge import Scope, Tally

        if self.tally is None:
            self.tally = Tally(self.baseline)
        self.tally.finish(self.scope or Scope(whole=False))
        return self.tally

    def judged(self) -> tuple[int, int]:
        """(items judged: a verdict of the spec's, pass / fail / error / invalid-case / timeout / crash; items
        selected: every item the run noted, unsupported, skipped and probes included)."""
        from runners.results import PROBE, SKIPPED, UNSUPPORTED

        selected = sum(self.verdicts.values())
        return selected - sum(self.verdicts.get(v, 0) for v in (PROBE, SKIPPED, UNSUPPORTED)), selected


def make_record(result, nodeid: str, outcome: str, xfail: str | None) -> dict:
    """An item's record in the results file: the Result's, and how the runner reported it."""
    record = result.to_record() if not isinstance(result, dict) else result
    record["nodeid"] = nodeid
    record["outcome"] = outcome
    record["xfail"] = xfail
    return record
