"""pytest plugin: run opconform suites (and plain ONNX node tests) against a backend.

    pytest SUITE [--backend NAME|module:attr] [--tier strict|tolerant] [--xfails-file F]
           [--skips-file F] [--report results.json] [-k ...] [-x] [-n N] [--junitxml ...]

SUITE may be a suite directory, one kind folder of it (node/, probe/, negative/, graph/), one case
directory, or any tree holding ONNX node-test directories (model.onnx + test_data_set_<i>/), with or
without case.json. Each data set is one item, `<case name>[<i>]`, with node id
`<case dir>/model.onnx::<case name>[<i>]` (which may be given as an argument to run just that one).

A case that its suite's manifest.json lists but that is missing on disk is a failing item too.

A suite is data (any folder holding a manifest.json or case directories, and everything below it): no
Python file in it is imported (conftest.py, test modules, packages: each is named in one line at the end),
no other file is handed to pytest's collectors, a linked folder leaving the suite or looping back is not
followed (one line each), and only the suites the arguments name are read. An item is known by its case
directory: a case.json naming another case, or saying another kind, family or op than the suite's
manifest.json lists, makes it invalid-case; so does a manifest entry whose kind is none of the kinds or
whose name is no plain directory name, and a case directory whose name holds control characters. Every text
printed (names, messages, reasons, summary lines) has its control and bidi characters escaped.

Without --backend the plugin adds its options and does nothing else: it collects nothing and prints
nothing, so other pytest runs are unaffected. Verdicts (runners/execute.py) map to outcomes:
pass / probe -> passed; unsupported -> skipped with the backend's reason; fail / error /
invalid-case -> failed with the verdict message (no traceback of this plugin).
"""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest

from runners import in_process
from runners.escape import has_unsafe, printable
from runners.pytest_collect import PLUGIN_NAME, CaseDir, CaseItem, CasesDir, SuiteDir, deselect
from runners.pytest_refusals import REFUSED, guard_conftests, refuse_cases_without_backend, refuse_config_in_suite
from runners.run_options import OPTIONS, OptionError, save_error
from runners.session import MAX_BATCH, RunCore, make_record
from runners.suite_tree import SuiteTree, checked_meta, is_case_dir, never_imported
from runners.summary import (gate_lines, judged_line, results_header, selected_cases, selection, suites_run,
                              update_line, verdict_line, whole_suites)
from runners.tiers import tier_summary, tiers_entry



def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("opconform", "opconform conformance suites")
    for flags, kwargs in OPTIONS:
        group.addoption(*flags, **kwargs)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """With --backend, no conftest.py inside a suite is ever imported: pytest imports those of the arguments'
    directories (and their test*/ subdirectories: every case directory) right after this hook, and those of
    every folder it collects later. A guard in front of pytest's one way of importing a conftest refuses them."""
    if getattr(early_config.known_args_namespace, "backend", None):
        guard_conftests(early_config)




def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("backend", None)
    if not spec:
        refuse_cases_without_backend(config)
        return
    from runners import cancel_plugin

    # first, while this process has one thread (numpy's thread pools start with the backend): SIGTERM / SIGHUP
    # end the run as Ctrl-C does, a worker cannot signal the runner, no stale results file is left
    cancel_plugin.configure(config, config.getoption("report"))
    refuse_config_in_suite(config)
    try:
        run = _configured_run(config, spec)
    except OptionError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(run, PLUGIN_NAME)


def _configured_run(config: pytest.Config, spec: str) -> "OpconformRun":
    """The session's run, every option and file checked (OptionError) before anything runs."""
    from runners import run_options as o

    options = o.parse_backend_options(config.getoption("backend_option"))
    backend = o.load_backend(spec, options)
    families = o.check_families(config.getoption("family"))
    xfails = o.read_patterns(config.getoption("xfails_file"), "--xfails-file")
    skips = o.read_patterns(config.getoption("skips_file"), "--skips-file")
    report = config.getoption("report")
    if report:
        o.check_report_path(report)
    timeout, memory = o.worker_limits(config.getoption("case_timeout"), config.getoption("case_memory"))
    o.check_isolation(config.getoption("isolation"), config.getoption("baseline"))
    mode = o.run_mode(config.getoption("inputs"), config.getoption("shapes"), config.getoption("max_opset"))
    core = RunCore(backend, config.getoption("tier"), mode, config.invocation_params.dir)
    core.families = families
    run = OpconformRun(config, core, xfails, skips, report)
    if o.configure_gate(core, report, config.getoption("baseline"), config.getoption("update_baseline"),
                        config.getoption("shard")):
        run.want_records = True
    o.configure_claims(core, config.getoption("claims"), list(config.args), config.invocation_params.dir,
                       run._manifests)
    from runners.gate_judge import Scope

    whole = whole_suites(list(config.args), config.invocation_params.dir, run._manifests,
                         config.getoption("keyword"), config.getoption("markexpr"))
    core.scope = Scope(whole=whole, families=families, shard=core.shard)
    if config.getoption("isolation") == "process":
        from runners.worker import IsolatedRunner

        core.isolated = IsolatedRunner(spec, timeout=timeout, memory=memory, options=options, mode=mode)
        xdist_controller = not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))
        if not (config.getoption("collectonly") or xdist_controller):
            core.isolated.launch()  # the worker loads the backend while this process collects
    elif not hasattr(config, "workerinput"):  # --isolation none: said at the start and in the summary
        config.pluginmanager.register(in_process.Announce(), "opconform-in-process")
    return run


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, config):
    """Around the terminal reporter's own summary: the counts per verdict come after its short test summary,
    right above pytest's last line (which says only passed / failed / skipped)."""
    try:
        return (yield)
    finally:
        run = config.pluginmanager.get_plugin(PLUGIN_NAME)
        if run is not None and run.core.verdicts and not run.is_worker:
            core = run.core
            if run.judged:
                terminalreporter.write_line(run.judged, red=run.judged.startswith("opconform: nothing"))
            terminalreporter.write_line(printable(verdict_line(core.verdicts, f"{core.name} {core.version}")))


def _drop_silent_reports(config) -> None:
    """Keep from the terminal's passed setup / teardown reports only those with captured output.

    For every failure, pytest's terminal summary scans all of them for teardown output to print
    (TerminalReporter._get_teardown_reports): minutes for a suite with thousands of failures. The
    reports dropped have no sections, so nothing they could print is lost (run before the summary:
    the terminal reporter writes it after its own pytest_sessionfinish)."""
    tr = config.pluginmanager.get_plugin("terminalreporter")
    stats = getattr(tr, "stats", None)
    if not isinstance(stats, dict) or not stats.get("") or not (stats.get("failed") or stats.get("error")):
        return
    stats[""] = [r for r in stats[""] if getattr(r, "sections", None)]


def _wont_run(item) -> bool:
    """Whether a marker may keep the item from running (skip, skipif, xfail with run=False)."""
    if item.get_closest_marker("skip") is not None or item.get_closest_marker("skipif") is not None:
        return True
    xfail = item.get_closest_marker("xfail")
    return xfail is not None and not xfail.kwargs.get("run", True)


class OpconformRun:
    """The plugin's state for one session with --backend: the run's core (runners/session.py) and what
    pytest's side adds: markers, the order of the items, the records carried from xdist's workers."""

    def __init__(self, config: pytest.Config, core: RunCore, xfails: list[str], skips: list[str],
                 report: str | None):
        from runners.suite_tree import Manifests

        self.config = config
        self.core = core
        self.xfails = xfails
        self.skips = skips
        self.report = Path(report).resolve() if report else None
        self.is_worker = hasattr(config, "workerinput")  # pytest-xdist worker
        self.want_records = self.report is not None  # (workers get --report too: they send records)
        self.written = False  # the results file
        self.baseline_written = False
        self.baseline_changes: dict = {}  # what the --update-baseline write recorded
        self.judged = ""  # the judged / selected line (runners.summary.judged_line)
        self._items: list = []  # the session's items, in run order (for _following)
        self._positions: dict[int, int] = {}
        self._manifests = Manifests()
        self._markers: dict[tuple[str, str], object] = {}  # (field, value) -> its MarkDecorator
        self.tree = SuiteTree()
        self.refused: list[str] = config.stash.setdefault(REFUSED, [])  # what a suite held and was not read

    def refuse(self, line: str) -> None:
        if line not in self.refused:
            self.refused.append(line)

    # ---- markers ----------------------------------------------------------------------
    def case_entries(self, folder: Path) -> dict:
        """{case name: manifest entry} of the cases in `folder` when it is a kind folder of a suite (the
        manifest is read once per suite), else {}."""
        return self._manifests.case_entries(folder)

    def manifest(self, path: Path) -> dict | None:
        """The manifest of the suite at `path` (read once), or None when `path` is not a suite."""
        return self._manifests.manifest(path)

    def manifest_refusal(self, path: Path) -> str | None:
        return self._manifests.refusal(path)

    def mark_case(self, node, entry: dict | None = None) -> None:
        """Markers family_<family>, op_<op>, kind_<kind> on a case node, which its items inherit (for -m and
        -k), and node.family for --family. They come from the suite's manifest entry of the case, else from
        its case.json; a plain ONNX node test gets none. Only for selecting: the run itself reads and checks
        case.json."""
        node.listed = entry
        if entry is None or "family" not in entry:
            readable = isinstance(node, CaseDir) and not has_unsafe(node.path.name)  # else it is not read at all
            entry = checked_meta(node.path) if readable else (entry or {})
        family = entry.get("family")
        node.family = family if isinstance(family, str) else None
        for field in ("family", "op", "kind"):
            value = entry.get(field)
            if isinstance(value, str) and value:
                node.add_marker(self._marker(field, value))

    def _marker(self, field: str, value: str):
        mark = self._markers.get((field, value))
        if mark is None:  # registered first, so that --strict-markers accepts it
            name = f"{field}_{_identifier(value)}"
            self.config.addinivalue_line("markers", f"{name}: opconform cases whose {field} is {value}")
            mark = self._markers[field, value] = getattr(pytest.mark, name)
        return mark

    # ---- running ----------------------------------------------------------------------
    def execute(self, item: CaseItem):
        """The item's Result (RunCore.judge); with a worker, the data sets that run next go in the same round trip."""
        from runners.worker import WorkerDied

        if self.core.isolated is None:  # --isolation none: a backend's exit is the item's crash
            return in_process.judge(self.core, item)
        then = self._next_case(item, more := self._following(item))
        try:
            return self.core.judge(item, more, then)
        except WorkerDied as exc:  # the backend cannot load in a worker: every item would say so
            pytest.exit(printable(f"opconform: --backend {self.core.isolated.backend_spec}: {exc}"),
                        returncode=pytest.ExitCode.USAGE_ERROR)

    def gate(self, item: CaseItem) -> bool:
        """The gate's judgement (runners.session.RunCore.gate) as pytest sees it: noted in the item's user
        properties (xdist carries them), an xfail for a failure no worse than the baseline. Returns whether the
        item is a regression (an unsupported one then fails: lost support)."""
        props, xfail = self.core.gate(item.case_name, item.index, item.result)
        item.user_properties.extend(props)
        if xfail is not None:
            pytest.xfail(xfail)
        return any(k == "opconform_regression" for k, _ in props)

    def _following(self, item: CaseItem) -> list[int]:
        """The data sets of item's case that run right after it in this session (so that the worker can
        run them in the same round trip): the next items, while they are of the same case and carry no
        skip or xfail(run=False) marker (a skips file names items that must not run at all)."""
        pos = self._positions.get(id(item))
        if pos is None:
            return []
        out = []
        for nxt in self._items[pos + 1: pos + 1 + MAX_BATCH]:
            if type(nxt) is not CaseItem or nxt.case_dir != item.case_dir or _wont_run(nxt):
                break
            out.append(nxt.index)
        return out

    def _next_case(self, item: CaseItem, more: list[int]):
        """(case dir, case name, data sets) of the case this process runs after item's, when item is the last
        of its case to run here (`nextitem` is what pytest, or pytest-xdist in a worker, will run next)."""
        nxt = getattr(item, "_opconform_next", None)
        if more or type(nxt) is not CaseItem or nxt.case_dir == item.case_dir or _wont_run(nxt):
            return None
        return nxt.case_dir, nxt.case_name, [nxt.index, *self._following(nxt)]

    # ---- hooks ------------------------------------------------------------------------
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        core = self.core
        from runners.machine import describe

        lines = [f"opconform: backend {core.name} {core.version}, tier {core.tier}"]
        if core.settings:
            lines.append("opconform: settings " + ", ".join(f"{k}={v}" for k, v in sorted(core.settings.items())))
        lines.append(f"opconform: machine {describe(core.machine)}")
        return [printable(line) for line in lines]

    def pytest_sessionstart(self, session) -> None:
        """Before any verdict, whatever the verbosity (-q hides the header): the machine or backend version the
        baseline was recorded on, where it is another."""
        elsewhere = self.core.elsewhere_line() if not self.is_worker else None
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if elsewhere and tr is not None:
            tr.write_line(elsewhere, yellow=True)

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session):
        """Collection makes tens of thousands of nodes that live to the end of the session: the cyclic
        garbage collector would walk them again and again (during collection, and during the run)."""
        gc.disable()
        try:
            return (yield)
        finally:
            gc.enable()
            gc.freeze()  # the nodes made so far are never garbage; later collections skip them

    @pytest.hookimpl(wrapper=True)
    def pytest_collect_file(self, file_path: Path, parent):
        """No file inside a suite becomes a pytest node, whoever asks (the plugin's own folders never do; a
        file pytest reaches straight from an argument might): a node made here would import or run it."""
        nodes = yield
        if nodes and self.tree.root_of(file_path.parent) is not None:
            if file_path.suffix == ".py":
                self.refuse(never_imported(file_path, self.config.invocation_params.dir))
            return []
        return nodes

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent):
        """A folder pytest reaches on its own (its arguments and the folders above them; inside a suite the
        plugin's collectors walk by themselves): inside a suite never pytest's collectors (a package's
        __init__.py would be imported)."""
        if is_case_dir(path):
            return CaseDir.at(parent, path)
        suite = self.tree.root_of(path)
        if suite is None and (path / "__init__.py").is_file():
            return None  # a Python package outside any suite: pytest's own collector
        cls = SuiteDir if suite == path and self.manifest(path) is not None else CasesDir
        d = cls.from_parent(parent, path=path)
        d.suite, d.seen = suite, frozenset({os.path.realpath(path)})
        return d

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        deselect(config, items)  # --family, --shard (most cases were left out while collecting)
        if not (self.xfails or self.skips):
            return
        for item in items:
            if not isinstance(item, CaseItem):
                continue
            hit = next((p for p in self.skips if p in item.nodeid), None)
            if hit is not None:
                item.add_marker(pytest.mark.skip(reason=printable(f"skips-file: {hit}")))
                continue
            hit = next((p for p in self.xfails if p in item.nodeid), None)
            if hit is not None:
                item.add_marker(pytest.mark.xfail(reason=printable(f"xfails-file: {hit}"), strict=False))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        item._opconform_next = nextitem  # for _next_case; the protocol itself is pytest's
        return None

    def pytest_collection_finish(self, session) -> None:
        self._items = session.items
        self._positions = {id(it): pos for pos, it in enumerate(session.items)}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        rep = yield
        if not isinstance(item, CaseItem):
            return rep
        record = None
        if call.when == "call" and item.result is not None:
            rep.opconform_verdict = item.result.verdict  # for the verdict counts (xdist carries it)
            if item.result.verdict == "unsupported" and rep.skipped and isinstance(rep.longrepr, tuple):
                rep.longrepr = (printable(os.fspath(item.case_dir)), None, rep.longrepr[2])  # the case, not this plugin
            if self.want_records:
                record = item.result.to_record()
            tiers = tiers_entry(item.result)
            if tiers is not None:  # for the tiers-met summary (JSON: xdist carries it)
                rep.opconform_tiers = json.dumps(tiers)
            item.result = None  # probe outputs can be large: keep them only in the record
        elif call.when == "setup" and rep.skipped:
            rep.opconform_verdict = "skipped"
        if call.when == "setup" and rep.skipped and self.want_records:
            reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            record = self.core.skipped(item.case_name, item.index, item.case_dir, reason.removeprefix("Skipped: "))
        if record is not None:
            outcome = ("xfailed" if rep.skipped and hasattr(rep, "wasxfail") else
                       "xpassed" if rep.passed and hasattr(rep, "wasxfail") else rep.outcome)
            xfail = item.get_closest_marker("xfail")
            record = make_record(record, item.nodeid, outcome, xfail.kwargs.get("reason", "") if xfail else None)
            # as JSON text: pytest-xdist carries it to the controller, and execnet cannot send every
            # Python int (it fails on ints below -2**31, which probe outputs of int64 hold)
            rep.opconform_record = json.dumps(record, allow_nan=False)
        return rep

    def pytest_runtest_logreport(self, report) -> None:
        if self.is_worker:
            return
        record = getattr(report, "opconform_record", None)
        tiers = getattr(report, "opconform_tiers", None)
        self.core.note(report.nodeid.rsplit("::", 1)[-1], getattr(report, "opconform_verdict", None),
                       dict(report.user_properties) if report.when == "call" else {},
                       json.loads(record) if record is not None else None,
                       json.loads(tiers) if tiers is not None else None)

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.core.isolated is not None:
            self.core.isolated.close()
        if self.is_worker:  # the controller names what this worker refused (it collects nothing itself)
            self.config.workeroutput["opconform_refused"] = list(self.refused)
            return
        _drop_silent_reports(self.config)
        tally = self.core.finish_gate()
        if session.exitstatus == pytest.ExitCode.OK and tally is not None and tally.failed:
            session.exitstatus = exitstatus = pytest.ExitCode.TESTS_FAILED  # vanished items
        self.judged, nothing = judged_line(self.core)
        if session.exitstatus == pytest.ExitCode.OK and nothing:
            session.exitstatus = exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
        # the results file first: whatever else fails, the run's verdicts are not lost
        if self.report is not None and self._save(session, "--report", self.report, self._write_report, exitstatus):
            self.written = True
        if self.core.baseline_path is not None and self.config.getoption("update_baseline"):
            self.baseline_written = self._save(session, "--baseline", self.core.baseline_path, self._write_baseline)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """pytest-xdist: a worker is done; what it refused is shown with the controller's own lines."""
        for line in getattr(node, "workeroutput", {}).get("opconform_refused", ()):
            self.refuse(line)

    def _save(self, session, option: str, path: Path, write, *args) -> bool:
        """Run one of the session's writes; a failure is one red line and a failing exit status, and the
        other writes still happen."""
        try:
            write(*args)
            return True
        except Exception as exc:  # noqa: BLE001 - the session must end with its other files written
            line = save_error(exc, option, path)
            tr = self.config.pluginmanager.get_plugin("terminalreporter")
            if tr is not None:
                tr.write("\n")
                tr.write_line(line, red=True)
            if session.exitstatus in (0, 1, 5):  # 3 says a file is missing, even where items failed (not 2 or 4)
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return False

    def _write_report(self, exitstatus) -> None:
        from runners.results import write_results

        config, core = self.config, self.core
        suites = suites_run(config.args, config.invocation_params.dir, self._manifests)
        chosen = selection(config.getoption("family"), config.getoption("keyword"), config.getoption("markexpr"),
                           config.getoption("shard"), list(config.args),
                           selected_cases(config.args, config.invocation_params.dir, core.records, self._manifests),
                           core.scope is not None and core.scope.whole)
        header = results_header(core, config.invocation_params.args, exitstatus, config.getoption("xfails_file"),
                                config.getoption("skips_file"), suites, config.getoption("shard"), chosen)
        write_results(self.report, core.records, header)

    def _write_baseline(self) -> None:
        from runners.gate import write_baseline

        core = self.core
        self.baseline_changes = write_baseline(core.baseline_path, core.records, core.identity,
                                               suites_run(self.config.args, self.config.invocation_params.dir,
                                                          self._manifests), core.scope, core.baseline_extra())

    def pytest_terminal_summary(self, terminalreporter) -> None:
        core = self.core
        for line in self.refused:
            terminalreporter.write_line(line, yellow=True)
        if core.tier_counts and not self.is_worker:
            for line in tier_summary(core.tier_counts, f"{core.name} {core.version}"):
                terminalreporter.write_line(printable(line))
        if self.written:
            terminalreporter.write_line(printable(f"opconform: results written to {self.report}"))
        if self.baseline_written:
            terminalreporter.write_line(update_line(core.baseline_path, core.records, self.baseline_changes))
        if core.baseline is not None and not self.is_worker and core.tally is not None:
            suites = suites_run(self.config.args, self.config.invocation_params.dir, self._manifests)
            for line, colour in gate_lines(core, suites, self.report if self.written else None):
                terminalreporter.write_line(line, **({colour: True} if colour else {}))


def _identifier(text: str) -> str:
    """A marker name part -m can spell: letters, digits and underscores."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text)
