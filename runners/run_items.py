"""Running the items of `opconform run` (runners/run.py): the outcome each item gets (what pytest
reports for the plugin's item: passed, failed, skipped, xfailed, xpassed), the records, and the run's end."""

from __future__ import annotations

import queue
import sys
import threading

from runners.escape import printable
from runners.session import MAX_BATCH, make_record

CHUNK = 16  # cases a worker of -j N takes at a time (within them, the next case is asked for ahead)
EXIT = {"ok": 0, "failed": 1, "interrupted": 2, "internal": 3, "usage": 4, "none": 5}


def _cases(items: list) -> list[list]:
    """The items in runs of one case (a case's data sets go to the worker together)."""
    runs: list[list] = []
    for it in items:
        if runs and runs[-1][0].case_dir == it.case_dir and it.problem is None and runs[-1][0].problem is None:
            runs[-1].append(it)
        else:
            runs.append([it])
    return runs


class Runner:
    """Runs items on the core's backend (in `workers`, one thread each, or in this process without any)."""

    def __init__(self, core, workers: list, xfails: list[str], skips: list[str], want_records: bool, manifests=None):
        self.core, self.workers, self.manifests = core, workers, manifests
        self.xfails, self.skips = xfails, skips
        self.want_records = want_records
        self.outcomes: dict[str, int] = {}
        self.failures: list[str] = []
        self.n_items = 0
        self._lock = threading.Lock()
        self.fatal: str | None = None  # the backend cannot load in a worker
        self.stopping = False  # interrupted: the workers' threads stop, what they still return is dropped
        self.written = self.baseline_written = False

    def _marks(self, item) -> tuple[str | None, str | None]:
        """(skips-file reason, xfails-file reason) of an item."""
        hit = next((p for p in self.skips if p in item.nodeid), None)
        if hit is not None:
            return printable(f"skips-file: {hit}"), None
        hit = next((p for p in self.xfails if p in item.nodeid), None)
        return None, printable(f"xfails-file: {hit}") if hit is not None else None

    def run(self, items: list) -> str:
        """Run every item; the status ("ok", "failed", "interrupted", "usage", "none")."""
        self.n_items = len(items)
        if not items:
            return "none"
        runs = _cases(items)
        try:
            if len(self.workers) <= 1:
                self._run_share(runs, self.workers[0] if self.workers else None)
            else:
                self._run_parallel(runs)
        except KeyboardInterrupt:
            from runners import cancel

            cancel.hold()
            self.stopping = True
            return "interrupted"
        if self.fatal is not None:
            return "usage"
        return "failed" if self.outcomes.get("failed") else "ok"

    def _run_parallel(self, runs: list[list]) -> None:
        """Each worker takes the next few cases from a common queue (a slow case holds up one worker only)."""
        work: queue.Queue = queue.Queue()
        for k in range(0, len(runs), CHUNK):
            work.put(runs[k:k + CHUNK])
        threads = [threading.Thread(target=self._drain, args=(work, w), daemon=True) for w in self.workers]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.5)  # (a join with a timeout lets Ctrl-C through)
        except KeyboardInterrupt:  # each thread's worker ends (it may be starting): the threads stop, then the run
            from runners import cancel

            cancel.hold()
            self.stopping = True
            for w in self.workers:
                w.stop()
            for t in threads:
                t.join(30)
            raise

    def _drain(self, work: queue.Queue, worker) -> None:
        while self.fatal is None and not self.stopping:
            try:
                chunk = work.get_nowait()
            except queue.Empty:
                return
            self._run_share(chunk, worker)

    def _run_share(self, runs: list[list], worker) -> None:
        for k, run in enumerate(runs):
            if self.fatal is not None or self.stopping:
                return
            self._run_case(run, worker, runs[k + 1] if k + 1 < len(runs) else None)

    def _run_case(self, run: list, worker, nxt: list | None) -> None:
        """The items of one case: the data sets that will run are asked for in one round trip, with the
        next case's behind them."""
        from runners.worker import WorkerDied, WorkerStopped

        marks = [self._marks(it) for it in run]
        todo = [it.index for it, (skip, _) in zip(run, marks) if skip is None and it.problem is None]
        then = None
        if nxt is not None and nxt[0].problem is None:
            first = [it.index for it in nxt if self._marks(it)[0] is None][: MAX_BATCH + 1]
            if first:
                then = (nxt[0].case_dir, nxt[0].case_name, first)
        for item, (skip, xfail) in zip(run, marks):
            if skip is not None:
                self._skipped(item, skip)
                continue
            if item.problem is not None:
                result = self.core.unread(item.case_name, item.kind, item.problem)
            else:
                rest = todo[todo.index(item.index) + 1:][:MAX_BATCH]
                try:
                    if worker is None:  # --isolation none
                        from runners.in_process import judge

                        result = judge(self.core, item)
                    else:
                        result = self.core.judge(item, rest, then if not rest else None, worker=worker)
                except WorkerStopped:
                    return
                except WorkerDied as exc:
                    if not self.stopping:  # (stopped while it started: not the backend's failure)
                        self.fatal = printable(f"opconform: --backend {worker.backend_spec}: {exc}")
                    return
            if self.stopping:  # a worker ended by stop(): its last answer is no verdict
                return
            self._judged(item, result, xfail)

    def _skipped(self, item, reason: str) -> None:
        record = self.core.skipped(item.case_name, item.index, item.case_dir, reason) if self.want_records else None
        if record is not None:
            record = make_record(record, item.nodeid, "skipped", None)
        with self._lock:
            self._count("skipped")
            self.core.note(item.name, "skipped", {}, record)

    def _judged(self, item, r, xfail: str | None) -> None:
        """The outcome pytest gives the plugin's item for this Result (CaseItem.runtest), and its record."""
        from runners.results import CRASH, PASS, PROBE, TIMEOUT, UNSUPPORTED
        from runners.tiers import tiers_entry

        props = [("opconform_verdict", r.verdict)]
        if r.verdict in (PASS, PROBE) or (r.kind == "probe" and r.verdict in (CRASH, TIMEOUT)):
            if r.verdict in (PASS, PROBE):
                props += self.core.gate(item.case_name, item.index, r)[0]
            outcome = "xpassed" if xfail is not None else "passed"
        elif r.verdict == UNSUPPORTED:
            props += self.core.gate(item.case_name, item.index, r)[0]
            outcome = "failed" if any(k == "opconform_regression" for k, _ in props) else "skipped"  # lost support
        else:
            noted, baseline_xfail = self.core.gate(item.case_name, item.index, r)
            props += noted
            outcome = "xfailed" if baseline_xfail is not None or xfail is not None else "failed"
        record = make_record(r.to_record(), item.nodeid, outcome, xfail) if self.want_records else None
        with self._lock:
            self._count(outcome)
            if outcome == "failed":
                first = (r.message or "").split("\n", 1)[0]
                self.failures.append(printable(f"FAILED {item.nodeid} - [{r.verdict}] {first}"))
            self.core.note(item.name, r.verdict, dict(props), record, tiers_entry(r))

    def _count(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    # ---- the end --------------------------------------------------------------------
    def finish(self, status: str, args, refused: list[str], seconds: float) -> int:
        """Write the results file and the baseline, print the summary; the exit status."""
        from runners import cancel
        from runners.summary import (gate_lines, judged_line, results_header, selected_cases, selection, suites_run,
                                     update_line, verdict_line)
        from runners.tiers import tier_summary

        core, out = self.core, sys.stdout
        if self.fatal is not None:
            print(self.fatal, file=sys.stderr)
            return EXIT["usage"]
        code = EXIT[status]
        tally = core.finish_gate()
        if code == EXIT["ok"] and tally is not None and tally.failed:
            code = EXIT["failed"]  # lost support or vanished items (a lost-support item fails already)
        judged, nothing = judged_line(core)
        if code == EXIT["ok"] and nothing:
            code = EXIT["none"]
        suites = suites_run(args.paths, core.base, self.manifests)
        if args.report:
            from runners.results import write_results

            chosen = selection(args.family, None, None, args.shard, list(args.paths),
                               selected_cases(args.paths, core.base, core.records, self.manifests),
                               core.scope is not None and core.scope.whole)
            header = results_header(core, sys.argv[1:], code, args.xfails_file, args.skips_file, suites, args.shard,
                                    chosen)
            self.written = self._save("--report", args.report, lambda: write_results(args.report, core.records, header))
        changes = None
        if core.baseline_path is not None and args.update_baseline:
            from runners.gate import write_baseline

            def write() -> None:
                nonlocal changes
                changes = write_baseline(core.baseline_path, core.records, core.identity, suites, core.scope,
                                         core.baseline_extra())

            self.baseline_written = self._save("--baseline", core.baseline_path, write)
        for line in self.failures:
            print(line, file=out)
        for line in refused:
            print(line, file=out)
        if core.tier_counts:
            for line in tier_summary(core.tier_counts, f"{core.name} {core.version}"):
                print(printable(line), file=out)
        if self.written:
            print(printable(f"opconform: results written to {args.report}"), file=out)
        if self.baseline_written:
            print(update_line(core.baseline_path, core.records, changes or {}), file=out)
        if core.baseline is not None:
            for line, _ in gate_lines(core, suites, args.report if self.written else None):
                print(line, file=out)
        for line, _ in cancel.end_lines():
            print(line, file=out)
        if core.verdicts:
            print(judged, file=out)
            print(printable(verdict_line(core.verdicts, f"{core.name} {core.version}")), file=out)
        order = ("failed", "passed", "skipped", "xfailed", "xpassed")
        counts = ", ".join(f"{self.outcomes[o]} {o}" for o in order if self.outcomes.get(o))
        print(f"{counts or 'no items ran'} in {seconds:.2f}s" + (" (interrupted)" if status == "interrupted" else ""),
              file=out)
        if code == 0 and self._save_failed:
            return EXIT["internal"]
        return code

    _save_failed = False

    def _save(self, option: str, path, write) -> bool:
        from runners.run_options import save_error

        try:
            write()
            return True
        except Exception as exc:  # noqa: BLE001 - the run must end with its other files written
            print(save_error(exc, option, path), file=sys.stderr)
            self._save_failed = True
            return False
