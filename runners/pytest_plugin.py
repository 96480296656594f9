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

import datetime
import gc
import json
import os
import types
from pathlib import Path

import pytest

from runners.escape import has_unsafe, printable

PLUGIN_NAME = "opconform-run"
REFUSED = pytest.StashKey[list]()  # one line for each thing found in a suite and not read (shown at the end)
TIERS = ("strict", "tolerant")
MAX_BATCH = 64  # data sets of one case asked of the worker in one round trip, beyond the first


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("opconform", "opconform conformance suites")
    group.addoption("--backend", default=None, metavar="NAME|module:attr",
                    help="run opconform / ONNX node-test case directories on this backend "
                         "(`opconform backends` lists them; module:attr names any onnx.backend.base.Backend "
                         "or opconform Backend). Without it no case is collected.")
    group.addoption("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                    help="configure the backend (repeatable): e.g. providers=..., graph_optimization_level=... "
                         "for onnxruntime, device=... for openvino (docs/backends.md lists each backend's keys)")
    group.addoption("--tier", default="strict", choices=TIERS,
                    help="comparison tier (default strict): tolerant allows +-1 on quantized outputs")
    group.addoption("--xfails-file", default=None, metavar="FILE",
                    help="test-id substrings, one a line (# comments): matching items are xfail (not strict)")
    group.addoption("--skips-file", default=None, metavar="FILE",
                    help="test-id substrings, one a line (# comments): matching items are skipped")
    group.addoption("--report", default=None, metavar="PATH",
                    help="write a JSON results file (one record per item) at the end of the session")
    group.addoption("--case-timeout", default=60.0, type=float, metavar="SECONDS",
                    help="kill the backend's worker when one data set runs longer (verdict timeout; default 60)")
    group.addoption("--case-memory", default=None, metavar="SIZE",
                    help="cap the backend worker's memory (e.g. 4G, 512M, none; default 4G): a data set that "
                         "runs out gets error naming the cap and a fresh worker (no effect with --isolation none)")
    group.addoption("--baseline", default=None, metavar="PATH",
                    help="gate mode: fail only on items worse than this baseline's verdicts; list items now better")
    group.addoption("--update-baseline", action="store_true",
                    help="write this run's verdicts to the --baseline file (items not run keep their old verdict)")
    group.addoption("--shard", default=None, metavar="I/N",
                    help="run only shard I of N (a stable split by case name; the N shards run every case once)")
    group.addoption("--family", action="append", default=[], metavar="F",
                    help="run only the cases of this family (repeatable); markers family_<F>, op_<Op> and "
                         "kind_<kind> select with -m too")
    group.addoption("--inputs", default="fed", choices=("fed", "initializers", "constant"),
                    help="how the model gets its inputs (default fed: every input at run time); initializers: "
                         "the weights (scales, zero points, conv weights, shapes...) as initializers holding the "
                         "data set's values; constant: every input an initializer (the model has no inputs)")
    group.addoption("--shapes", default="static", choices=("static", "dynamic"),
                    help="static (default): the graph's inputs and outputs declare their shapes; dynamic: "
                         "every dimension unknown (a dim_param), so the backend selects its kernels without them")
    group.addoption("--max-opset", default=None, type=int, metavar="N",
                    help="items whose model imports an ONNX opset newer than N are unsupported "
                         "(\"opset 23 > --max-opset 21\"): for a runtime that stops at an older opset")
    group.addoption("--isolation", default="process", choices=("process", "none"),
                    help="process (default): the backend runs in a worker process, so a crash or hang costs "
                         "one data set; none: in the pytest process (for debugging a backend)")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """With --backend, no conftest.py inside a suite is ever imported: pytest imports those of the arguments'
    directories (and their test*/ subdirectories: every case directory) right after this hook, and those of
    every folder it collects later. A guard in front of pytest's one way of importing a conftest refuses them."""
    if getattr(early_config.known_args_namespace, "backend", None):
        _guard_conftests(early_config)


def _guard_conftests(config: pytest.Config) -> None:
    pm = config.pluginmanager
    importconftest = getattr(pm, "_importconftest", None)
    if importconftest is None:  # fail closed: without the guard a suite's conftest.py would run
        raise pytest.UsageError("opconform: this pytest offers no way to keep a suite's conftest.py from "
                                "being imported; use pytest 8 or 9")
    refused = config.stash.setdefault(REFUSED, [])
    tree = SuiteTree()

    def guarded(conftestpath, *args, **kwargs):
        if tree.root_of(Path(conftestpath).parent) is None:
            return importconftest(conftestpath, *args, **kwargs)
        line = _never_imported(config, Path(conftestpath))
        if line not in refused:  # pytest may ask for one conftest twice (the argument, then its collection)
            refused.append(line)
        return types.ModuleType("conftest")  # an empty module: no hook, no fixture, no option

    pm._importconftest = guarded


def _never_imported(config: pytest.Config, path: Path) -> str:
    where = _relpath(path, config.invocation_params.dir)
    return printable(f"opconform: {where}: a Python file inside a suite is never imported (a suite is data)")


class SuiteTree:
    """Which suite a directory lies in: the nearest folder above it (or itself) holding a manifest.json,
    else, close by, a folder holding case directories (a tree of ONNX node tests). Listings are cached."""

    def __init__(self):
        self._holds: dict[Path, bool] = {}
        self._roots: dict[Path, Path | None] = {}

    def root_of(self, directory: Path) -> Path | None:
        directory = Path(os.path.abspath(directory))
        if directory not in self._roots:
            self._roots[directory] = self._root_of(directory)
        return self._roots[directory]

    def _root_of(self, directory: Path) -> Path | None:
        chain = (directory, *directory.parents)
        for a in chain:
            if os.path.lexists(a / "manifest.json"):
                return a
        from generator.case import KINDS

        for a in chain[:2]:  # the folder, a case directory's data set, a non-case folder of a tree (no further:
            # a stray model.onnx far above must not make a whole file system one suite)
            found = a.parent if is_case_dir(a) else a if self.holds_cases(a) else None
            if found is not None:  # a kind folder's suite is the folder above it, with a manifest or not
                return found.parent if found.name in KINDS else found
            if any(self.holds_cases(a / k) for k in KINDS):  # a suite without its manifest (a copied subset)
                return a
        return None

    def holds_cases(self, directory: Path) -> bool:
        if directory not in self._holds:
            try:
                with os.scandir(directory) as it:
                    self._holds[directory] = any(e.is_dir() and is_case_dir(Path(e.path)) for e in it)
            except OSError:
                self._holds[directory] = False
        return self._holds[directory]


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("backend", None)
    if not spec:
        _refuse_cases_without_backend(config)
        return
    from runners import cancel

    # first, while this process has one thread (numpy's thread pools start with the backend): SIGTERM / SIGHUP
    # end the run as Ctrl-C does, a worker cannot signal the runner, no stale results file is left
    cancel.configure(config, config.getoption("report"))
    _refuse_config_in_suite(config)
    from runners.backends.base import UnknownBackend
    from runners.backends.registry import get_backend

    options = parse_backend_options(config.getoption("backend_option"))
    try:
        backend = get_backend(spec, options or None)
    except UnknownBackend as exc:
        raise pytest.UsageError(_one_line(str(exc))) from None
    except Exception as exc:  # noqa: BLE001 - a backend that fails to load is a user-facing error
        raise pytest.UsageError(f"--backend {spec}: cannot load: {type(exc).__name__}: {_one_line(str(exc))}") from None
    families = _check_families(config.getoption("family"))
    xfails = read_patterns(config.getoption("xfails_file"), "--xfails-file")
    skips = read_patterns(config.getoption("skips_file"), "--skips-file")
    report = config.getoption("report")
    if report:
        check_report_path(report)
    from runners.worker import DEFAULT_MEMORY, check_timeout, parse_size

    timeout = config.getoption("case_timeout")
    try:
        check_timeout(timeout)
    except ValueError as exc:
        raise pytest.UsageError(f"--case-timeout {timeout:g}: {exc}") from None
    memory = config.getoption("case_memory")
    try:
        memory = DEFAULT_MEMORY if memory is None else parse_size(memory)
    except ValueError as exc:
        raise pytest.UsageError(f"--case-memory {config.getoption('case_memory')}: {exc}") from None
    from runners.input_modes import RunMode

    try:
        mode = RunMode(config.getoption("inputs"), config.getoption("shapes"), config.getoption("max_opset"))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    run = OpconformRun(config, backend, config.getoption("tier"), xfails, skips, report, mode)
    run.families = families
    _configure_gate(config, run)
    if config.getoption("isolation") == "process":
        from runners.worker import IsolatedRunner

        run.isolated = IsolatedRunner(spec, timeout=timeout, memory=memory, options=options, mode=mode)
        xdist_controller = not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None))
        if not (config.getoption("collectonly") or xdist_controller):
            run.isolated.launch()  # the worker loads the backend while this process collects
    config.pluginmanager.register(run, PLUGIN_NAME)


def _refuse_config_in_suite(config: pytest.Config) -> None:
    """pytest's configuration file must not lie in a suite: its addopts (-k, --deselect, --xfails-file, -p)
    would decide which verdicts count. pytest has applied it already, so the run is refused."""
    ini = config.inipath
    if ini is not None and SuiteTree().root_of(ini.parent) is not None:
        where = _relpath(ini, config.invocation_params.dir)
        raise pytest.UsageError(printable(f"{where}: a pytest configuration file inside a suite is never used (its "
                                          "options could drop or excuse cases); run from outside the suite, or "
                                          "name another one with -c"))


def parse_backend_options(pairs: list[str]) -> dict[str, str]:
    """--backend-option KEY=VALUE ... as a dict (runners.backends.base.parse_options; the backend checks them)."""
    from runners.backends.base import parse_options

    try:
        return parse_options(pairs)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def _refuse_cases_without_backend(config: pytest.Config) -> None:
    """`pytest SUITE` without --backend would collect nothing and say nothing: an argument that is a suite,
    one of its kind folders, a case directory or a case's model needs a backend, so say so. Other pytest runs
    (whose arguments are none of these) are left alone."""
    from generator.serialize import is_suite

    base = config.invocation_params.dir
    for arg in config.args:
        path = Path(os.path.abspath(base / arg.split("::", 1)[0]))
        if path.name == "model.onnx":
            path = path.parent
        if path.is_dir() and (is_case_dir(path) or is_suite(path) or is_suite(path.parent)):
            raise pytest.UsageError(f"{arg}: opconform cases run only with --backend NAME "
                                    "(`opconform backends` lists the backends)")


def _check_families(names: list[str]) -> frozenset[str]:
    from generator.families import FAMILIES

    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise pytest.UsageError(f"--family {unknown[0]}: unknown family; known: {', '.join(FAMILIES)}")
    return frozenset(names)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, config):
    """Around the terminal reporter's own summary: the counts per verdict come after its short test summary,
    right above pytest's last line (which says only passed / failed / skipped)."""
    try:
        return (yield)
    finally:
        run = config.pluginmanager.get_plugin(PLUGIN_NAME)
        if run is not None and run.verdicts and not run.is_worker:
            terminalreporter.write_line(printable(verdict_line(run.verdicts, f"{run.name} {run.version}")))


def _configure_gate(config: pytest.Config, run: "OpconformRun") -> None:
    """Check the gate's options and files before anything runs: a mistake found at the end loses the run."""
    from runners.gate import (GateError, check_baseline_backend, check_baseline_writable, check_output_paths,
                              parse_shard, read_baseline)

    baseline, update = config.getoption("baseline"), config.getoption("update_baseline")
    identity = {"name": run.name, "version": run.version, "settings": run.settings}
    try:
        if config.getoption("shard"):
            run.shard = parse_shard(config.getoption("shard"))
        if update and not baseline:
            raise GateError("--update-baseline needs --baseline PATH (the file to write)")
        check_output_paths(config.getoption("report"), baseline)
        if baseline:
            run.baseline_path = Path(baseline).resolve()
            if update:
                run.want_records = True
                check_baseline_writable(run.baseline_path)
                if run.baseline_path.exists():  # the update merges into it: same backend and settings
                    check_baseline_backend(read_baseline(run.baseline_path), identity, baseline)
            else:
                run.baseline = read_baseline(run.baseline_path)
                check_baseline_backend(run.baseline, identity, baseline)
    except GateError as exc:
        raise pytest.UsageError(printable(str(exc))) from None  # it may quote the baseline file


def _one_line(text: str) -> str:
    """A message on one line, shown safely (it may quote a file or a backend)."""
    return printable(" ".join(text.split()))


def read_patterns(path: str | None, option: str) -> list[str]:
    """Test-id substrings of an xfails / skips file: one a line, `#` starts a comment."""
    if not path:
        return []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise pytest.UsageError(f"{option} {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"{option} {path}: cannot read ({exc})") from None
    patterns = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            patterns.append(line)
    return patterns


def check_report_path(report: str) -> None:
    """Fail before running anything when the results file cannot be written."""
    path = Path(report)
    if path.is_dir():
        raise pytest.UsageError(f"--report {report}: is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(f"--report {report}: cannot create {path.parent} ({exc.strerror or exc})") from None
    if not os.access(path.parent, os.W_OK):
        raise pytest.UsageError(f"--report {report}: directory {path.parent} is not writable")


def is_case_dir(path: Path) -> bool:
    """A directory holding one case: model.onnx (ours carry case.json too; onnx's own tests do not)."""
    return (path / "model.onnx").is_file()


def count_datasets(path: Path) -> int:
    return scan_case(path) or 0


def scan_case(path) -> int | None:
    """How many test_data_set_<i> directories the case at `path` has, or None when `path` is not a case
    directory (no model.onnx file). One directory listing, no stat per entry."""
    model, n = False, 0
    try:
        with os.scandir(path) as entries:
            for e in entries:
                if e.name == "model.onnx":
                    model = e.is_file()
                elif e.name.startswith("test_data_set_") and e.is_dir():
                    n += 1
    except OSError:
        return None
    return n if model else None


class CaseFailure(Exception):
    """Raised by an item whose verdict is a failure; carries the Result."""

    def __init__(self, result):
        super().__init__(result.message)
        self.result = result


class _Crash:
    """What pytest's short summary and junitxml read from a failure: its one-line message."""

    def __init__(self, path: str, lineno: int, message: str):
        self.path, self.lineno, self.message = path, lineno, message


class CaseFailureRepr:
    """A failure shown as the verdict message only (pytest duck-types longrepr on toterminal)."""

    def __init__(self, text: str, path: Path):
        self.text = printable(text, newlines=True)  # a verdict message quotes the case and the backend
        first = text.split("\n", 1)[0] if text else ""
        self.reprcrash = _Crash(printable(os.fspath(path)), 0, printable(first))

    def toterminal(self, tw) -> None:
        for line in self.text.split("\n"):
            tw.line(line)

    def __str__(self) -> str:
        return self.text


class _InCase:
    """A node inside a case directory uses the hooks of the folder holding the case (one hook proxy for
    thousands of cases)."""

    @property
    def ihook(self):
        return self.parent.ihook


def _child_id(parent, name: str) -> str:
    """The node id pytest gives entry `name` of parent's directory: the parent's id and the name (a string
    join: this runs for every case of a suite)."""
    return f"{parent.nodeid}/{name}" if parent.nodeid else name


def _run(config) -> "OpconformRun":
    return config.pluginmanager.get_plugin(PLUGIN_NAME)


class CaseDir(_InCase, pytest.Collector):
    """One case directory. Its only child is its model.onnx, so that an item's node id
    (`<case dir>/model.onnx::<case name>[<i>]`) can be given on the command line; pytest refuses
    `::` after a directory.

    Deliberately neither a pytest.Directory nor a pytest.File (hence Collector): pytest imports any
    conftest.py of every Directory it collects (a case must not bring code along, and thousands of
    lookups cost seconds) and captures output around every File's collection."""

    n_datasets: int | None = None  # when the folder that holds the case has counted them already
    listed: dict | None = None  # its entry in the suite's manifest
    family: str | None = None  # from the suite's manifest or case.json (for --family)

    @classmethod
    def at(cls, parent, path: Path) -> "CaseDir":
        if parent.path == path.parent:
            nodeid = _child_id(parent, path.name)
        else:  # pytest handed a case directory straight to the session: its id relative to the root
            try:
                nodeid = path.relative_to(parent.config.rootpath).as_posix()
            except ValueError:
                nodeid = path.as_posix()
        d = cls.from_parent(parent, name=printable(path.name), path=path, nodeid=printable(nodeid))
        run = _run(parent.config)
        run.mark_case(d, run.case_entries(path.parent).get(path.name))
        return d

    def collect(self):
        if has_unsafe(self.path.name):  # its name would reach the terminal raw: one item saying so, nothing read
            where = _relpath(self.path, self.config.invocation_params.dir)
            yield UnreadCaseItem.unread(self, self.path, self.path.name, _kind_of(self.path),
                                        f"{where}: the case directory's name holds control or bidi characters "
                                        "(refused, not read)")
            return
        path = self.path / "model.onnx"
        f = CaseFile.from_parent(self, name=path.name, path=path, nodeid=_child_id(self, path.name))
        f.n_datasets = count_datasets(self.path) if self.n_datasets is None else self.n_datasets
        yield f

    def items(self):
        """The items of the case, their parents made but not collected through pytest's hooks."""
        for f in self.collect():
            yield from f.collect() if isinstance(f, CaseFile) else (f,)


class CaseFile(_InCase, pytest.Collector):
    """The model of one case: an item per data set (one item, [0], when the case has none)."""

    n_datasets = 0

    def collect(self):
        case_dir = self.path.parent
        for i in range(max(self.n_datasets, 1)):
            yield CaseItem.from_parent(self, name=f"{case_dir.name}[{i}]", case_name=case_dir.name, index=i)


class CasesDir(pytest.Dir):
    """A directory that may hold case directories (a kind folder of a suite, a folder of ONNX node tests).
    Its cases are collected straight from one listing: pytest's own per-directory hooks cost seconds over
    a suite's thousands of cases.

    Inside a suite (`suite` set) only case directories and folders are collected, never through pytest's
    collection hooks: a Python file is named in one line and never imported, no other file is handed to a
    collector, a link leaving the suite or looping back is not followed. Outside one, every entry goes
    through pytest's hooks as pytest.Dir does."""

    suite: Path | None = None  # the suite this folder lies in
    seen: frozenset[str] = frozenset()  # real paths of the suite's folders walked down to this one

    def _arguments(self) -> tuple[bool, bool]:
        """Whether an argument names a path inside this directory (a case, a node id: pytest then matches
        level by level, so case directories must be collected as nodes), and whether one names the
        directory itself or a folder above it (else pytest keeps only the way to the arguments inside)."""
        base = self.config.invocation_params.dir
        inside = whole = False
        for arg in self.config.args:
            path = Path(os.path.abspath(base / arg.split("::", 1)[0]))
            if path != self.path and self.path in path.parents:
                inside = True
            elif path == self.path or path in self.path.parents:
                whole = True
        return inside, whole

    def collect(self):
        config, ihook = self.config, self.ihook
        inside, whole = self._arguments()
        with os.scandir(self.path) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            path = Path(e.path)
            if inside and not whole and not self.session.isinitpath(path, with_parents=True):
                continue  # not on the way to an argument: not even looked at (a sibling suite is not read)
            if self.suite is not None:
                yield from self._in_suite(e, path, inside)
                continue
            if not self.session.isinitpath(path, with_parents=True) and ihook.pytest_ignore_collect(
                    collection_path=path, config=config):
                continue
            if e.is_dir():
                col = ihook.pytest_collect_directory(path=path, parent=self)
                if col is not None:
                    yield col
            elif e.is_file():
                yield from ihook.pytest_collect_file(file_path=path, parent=self)

    def _in_suite(self, e, path: Path, as_nodes: bool):
        """One entry of a folder of a suite: a case directory, a folder to walk, or nothing (a suite is data)."""
        config, run = self.config, _run(self.config)
        if not e.is_dir():
            if e.name.endswith(".py"):
                run.refuse(_never_imported(config, path))
            return
        if e.is_symlink() and not self._may_follow(path):
            return
        n = scan_case(e.path)
        ignoring = n is None or bool(config.getoption("ignore", None) or config.getoption("ignore_glob", None))
        if ignoring and not self.session.isinitpath(path, with_parents=True) and self.ihook.pytest_ignore_collect(
                collection_path=path, config=config):
            return
        if n is None:
            if has_unsafe(e.name):
                run.refuse(printable(f"opconform: {_relpath(path, config.invocation_params.dir)}: a folder whose "
                                     "name holds control or bidi characters is not read"))
                return
            nested = run.manifest(path) is not None  # a suite of its own: its manifest is checked too
            d = (SuiteDir if nested else CasesDir).from_parent(self, path=path)
            d.suite, d.seen = path if nested else self.suite, self.seen | {os.path.realpath(path)}
            yield d
            return
        d = CaseDir.from_parent(self, name=printable(e.name), path=path, nodeid=_child_id(self, printable(e.name)))
        d.n_datasets = n
        run.mark_case(d, run.case_entries(self.path).get(e.name))
        if as_nodes:
            yield d
        else:  # the items straight away: no collection round per case directory and model
            yield from d.items()

    def _may_follow(self, path: Path) -> bool:
        """A linked folder is walked only when it stays inside the suite and is none of the folders the walk
        is in already (a loop). One line for each link not followed."""
        real, root = os.path.realpath(path), os.path.realpath(self.suite)
        where = _relpath(path, self.config.invocation_params.dir)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            problem = "a link that leaves the suite is not followed"
        elif any(s == real or s.startswith(real.rstrip(os.sep) + os.sep) for s in self.seen):
            problem = "a link loop (to a folder above it) is skipped"
        else:
            return True
        _run(self.config).refuse(printable(f"opconform: {where}: {problem}"))
        return False


class SuiteDir(CasesDir):
    """A suite directory (manifest.json): its folders as any CasesDir's, plus a failing item for every case
    the manifest lists that is not on disk, so that a deleted case cannot pass unnoticed, and for every entry
    that names no case directory of the suite (a kind that is none of the kinds, a name that is no plain
    directory name: nothing outside the suite is looked at)."""

    def collect(self):
        yield from super().collect()
        run = _run(self.config)
        entries = (run.manifest(self.path) or {}).get("cases")
        root = str(self.path)
        for e in entries if isinstance(entries, list) else ():
            if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not isinstance(e.get("kind"), str):
                continue
            problem = _entry_problem(e)
            if problem is None:
                if os.path.isfile(os.path.join(root, e["kind"], e["name"], "model.onnx")):
                    continue
                where = self.path / e["kind"] / e["name"]
                problem = (f"{_relpath(where / 'model.onnx', self.config.invocation_params.dir)}: missing file "
                           "(the suite's manifest.json lists the case)")
                item = UnreadCaseItem.unread(self, where, e["name"], e["kind"], problem)
            else:
                where = self.path / "manifest.json"
                problem = f"{_relpath(where, self.config.invocation_params.dir)}: {problem}"
                item = UnreadCaseItem.unread(self, where, e["name"], "node", problem)
            run.mark_case(item, e)
            yield item


def _entry_problem(entry: dict) -> str | None:
    """Why a manifest entry names no case directory of its suite, or None."""
    from generator.case import KINDS

    kind, name = entry["kind"], entry["name"]
    if kind not in KINDS:
        return f"case {name!r}: kind {kind!r} is none of {', '.join(KINDS)} (refused, nothing read)"
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        return f"case {name!r}: the name is no plain directory name (refused, nothing read)"
    return None


class CaseItem(_InCase, pytest.Item):
    def __init__(self, *, case_name: str, index: int, **kwargs):
        super().__init__(**kwargs)
        self.case_name = case_name
        self.index = index
        self.result = None

    @property
    def case_dir(self) -> Path:
        return self.path.parent

    @property
    def family(self) -> str | None:
        return self.parent.parent.family  # CaseItem -> CaseFile -> CaseDir

    @property
    def listed(self) -> dict | None:
        return self.parent.parent.listed

    def runtest(self) -> None:
        from runners.results import CRASH, PASS, PROBE, TIMEOUT, UNSUPPORTED

        run: OpconformRun = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        self.result = run.execute(self)
        problem = _disagreement(self, self.result)
        if problem is not None:
            from runners.execute import invalid_case_result

            where = _relpath(self.case_dir / "case.json", self.config.invocation_params.dir)
            self.result = invalid_case_result(self.case_name, self.index, _kind_of(self.case_dir),
                                              f"{where}: {problem}", run.backend, run.tier)
        self.user_properties.append(("opconform_verdict", self.result.verdict))
        if self.result.verdict in (PASS, PROBE):
            run.gate(self)
            return
        if self.result.kind == "probe" and self.result.verdict in (CRASH, TIMEOUT):
            return  # undefined input: a crash is recorded for the report, never judged
        if self.result.verdict == UNSUPPORTED:
            from runners.execute import unsupported_reason

            run.gate(self)
            pytest.skip(printable(f"unsupported: {unsupported_reason(self.result.error)}"))
        run.gate(self)
        raise CaseFailure(self.result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailure):
            r = excinfo.value.result
            return CaseFailureRepr(f"[{r.verdict}] {r.message}", self.case_dir)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, self.name


def _disagreement(item: CaseItem, result) -> str | None:
    """Why a case read cleanly is still not the one the run selected, or None: an item is known by its
    directory (case.json must name the same case), and case.json must say the kind of the folder the case
    lies in and the family, op and kind the suite's manifest lists for it (--family and -m select by those)."""
    from generator.case import KINDS
    from runners.results import INVALID_CASE

    if result.verdict == INVALID_CASE:
        return None
    if result.case != item.case_name:
        return f"case.json names the case {result.case!r}, its directory is {item.case_name!r}"
    folder = item.case_dir.parent.name
    if folder in KINDS and result.kind != folder:
        return f"case.json says kind {result.kind!r}, the case lies in the kind folder {folder!r}"
    for field in ("kind", "family", "op"):
        listed = (item.listed or {}).get(field)
        if listed is not None and listed != getattr(result, field):
            return f"case.json says {field} {getattr(result, field)!r}, the suite's manifest.json {listed!r}"
    return None


class UnreadCaseItem(CaseItem):
    """A case that is not read, an invalid-case item naming the problem: one the suite's manifest lists but
    which is missing on disk or which names no directory of the suite, or a case directory whose name cannot
    be shown as it is. Its name is shown escaped."""

    family = None  # set by mark_case from the manifest entry
    listed = None

    def __init__(self, *, where: Path, kind: str, problem: str, **kwargs):
        super().__init__(**kwargs)
        self.where, self.kind, self.problem = where, kind, problem

    @classmethod
    def unread(cls, parent, where: Path, name: str, kind: str, problem: str) -> "UnreadCaseItem":
        shown = printable(name)
        item = cls.from_parent(parent, name=f"{shown}[0]", case_name=shown, index=0, where=where, kind=kind,
                               problem=printable(problem))
        item.family = getattr(parent, "family", None)
        return item

    @property
    def case_dir(self) -> Path:
        return self.where

    def runtest(self) -> None:
        from runners.execute import invalid_case_result

        run: OpconformRun = self.config.pluginmanager.get_plugin(PLUGIN_NAME)
        self.result = invalid_case_result(self.case_name, 0, self.kind, self.problem, run.backend, run.tier, run.mode)
        self.user_properties.append(("opconform_verdict", self.result.verdict))
        run.gate(self)
        raise CaseFailure(self.result)

    def reportinfo(self):
        return Path(printable(os.fspath(self.where))), 0, self.name


class OpconformRun:
    """The plugin's state for one session with --backend: backend, caches, the records."""

    def __init__(self, config: pytest.Config, backend, tier: str, xfails: list[str], skips: list[str],
                 report: str | None, mode=None):
        from runners.execute import PreparedCache, backend_identity
        from runners.input_modes import FED

        self.config = config
        self.backend = backend
        self.tier = tier
        self.xfails = xfails
        self.skips = skips
        self.report = Path(report).resolve() if report else None
        self.name, self.version, self.settings = backend_identity(backend)
        self.mode = mode or FED  # how each case's model is built (--inputs, --shapes, --max-opset)
        self.settings = {**self.settings, **self.mode.settings()}  # results of other modes are kept apart
        self.prepared = PreparedCache()
        self._cases: dict = {}  # case dir -> LoadedCase | CaseError (the last few)
        self.records: list[dict] = []
        self.is_worker = hasattr(config, "workerinput")  # pytest-xdist worker
        self.isolated = None  # runners.worker.IsolatedRunner unless --isolation none
        self.shard: tuple[int, int] | None = None
        self.baseline: dict | None = None  # gate mode: the baseline read
        self.baseline_path: Path | None = None
        self.regressions: list[str] = []
        self.better: list[str] = []
        self.want_records = self.report is not None  # (workers get --report too: they send records)
        self.tier_counts: dict[str, dict[str, int]] = {}  # family -> data sets judged / passing per tier
        self.verdicts: dict[str, int] = {}  # verdict -> items (the summary's last line)
        self.written = False  # the results file
        self.baseline_written = False
        self._items: list = []  # the session's items, in run order (for _following)
        self._positions: dict[int, int] = {}
        self.families: frozenset[str] = frozenset()  # --family: run only these
        self._manifests: dict[str, dict | None] = {}  # dir -> its suite manifest, None if not a suite
        self._indexes: dict[str, dict] = {}  # suite dir -> {kind: {name: manifest entry}}
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
        suite, kind = os.path.split(folder)
        index = self._indexes.get(suite)
        if index is None:
            index = self._indexes[suite] = _manifest_index(self.manifest(Path(suite)))
        return index.get(kind, {})

    def manifest(self, path: Path) -> dict | None:
        """The manifest of the suite at `path` (read once), or None when `path` is not a suite."""
        key = str(path)
        if key not in self._manifests:
            self._manifests[key] = _read_suite_manifest(path)
        return self._manifests[key]

    def mark_case(self, node, entry: dict | None = None) -> None:
        """Markers family_<family>, op_<op>, kind_<kind> on a case node, which its items inherit (for -m and
        -k), and node.family for --family. They come from the suite's manifest entry of the case, else from
        its case.json; a plain ONNX node test gets none. Only for selecting: the run itself reads and checks
        case.json."""
        node.listed = entry
        if entry is None or "family" not in entry:
            readable = isinstance(node, CaseDir) and not has_unsafe(node.path.name)  # else it is not read at all
            entry = _checked_meta(node.path) if readable else (entry or {})
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

    def execute(self, item: CaseItem):
        from generator.serialize import CaseError
        from runners.execute import invalid_case_result, run_case_dataset

        if self.isolated is not None:
            from runners.worker import WorkerDied

            more = self._following(item)
            try:
                what, answer = self.isolated.run(item.case_dir, item.index, self.tier,
                                                 lambda i: self._stub(item, i), more=more,
                                                 then=self._next_case(item, more))
            except WorkerDied as exc:  # the backend cannot load in a worker: every item would say so
                pytest.exit(printable(f"opconform: --backend {self.isolated.backend_spec}: {exc}"),
                            returncode=pytest.ExitCode.USAGE_ERROR)
            if what == "result":
                return answer
            path, problem = answer
            problem = f"{_relpath(Path(path), self.config.invocation_params.dir)}: {problem}"
            return invalid_case_result(item.case_name, item.index, _kind_of(item.case_dir), problem,
                                       self.backend, self.tier, self.mode)
        case = self.load(item.case_dir)
        if isinstance(case, CaseError):
            kind = _kind_of(item.case_dir)
            problem = f"{_relpath(case.path, self.config.invocation_params.dir)}: {case.problem}"
            return invalid_case_result(item.case_name, item.index, kind, problem, self.backend, self.tier, self.mode)
        return run_case_dataset(self.backend, case, item.index, self.tier, self.prepared, self.mode)

    def gate(self, item: CaseItem) -> None:
        """In gate mode, a failing item no worse than the baseline is an xfail; a worse one fails as a
        regression (the message says what the baseline had). The baseline's verdict counts only for the
        case content it was recorded for: a changed case is judged as a new one."""
        if self.baseline is None:
            return
        from runners.gate import baseline_verdict, is_worse, item_key, no_verdict_reason

        key = item_key(item.case_name, item.index)
        r = item.result
        base = baseline_verdict(self.baseline, key, r.content)
        item.user_properties.append(("opconform_baseline", base))
        if not r.failed:
            return  # pass, probe, unsupported: noted, for the items now better than the baseline
        if is_worse(r.verdict, base):
            why = {"new": "has no verdict (a new case)",
                   "changed": "has a verdict for other content of the case (the case changed)"}
            item.user_properties.append(("opconform_regression", base or no_verdict_reason(self.baseline, key)))
            r.message = f"regression: {r.verdict}, baseline {base or why[no_verdict_reason(self.baseline, key)]}\n{r.message}"
            return
        pytest.xfail(printable(f"baseline: {base}"))

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
        """(case dir, data sets, stub) of the case this process runs after item's, when item is the last of
        its case to run here (`nextitem` is what pytest, or pytest-xdist in a worker, will run next)."""
        nxt = getattr(item, "_opconform_next", None)
        if more or type(nxt) is not CaseItem or nxt.case_dir == item.case_dir or _wont_run(nxt):
            return None
        return nxt.case_dir, [nxt.index, *self._following(nxt)], lambda i: self._stub(nxt, i)

    def _stub(self, item: CaseItem, index: int):
        """The record a crash or timeout of data set `index` of item's case fills in: the case's identity
        from its case.json (read only then)."""
        from runners.results import ERROR, Result

        meta = _checked_meta(item.case_dir)
        kind = meta.get("kind") if meta.get("kind") in ("node", "graph", "negative", "probe") else None
        return Result(case=item.case_name, dataset=index, kind=kind or _kind_of(item.case_dir), verdict=ERROR,
                      message="", backend=self.name, backend_version=self.version, tier=self.tier,
                      settings=self.settings, op=_str_or_none(meta.get("op")), family=_str_or_none(meta.get("family")),
                      params=meta.get("params") if isinstance(meta.get("params"), dict) else None)

    # ---- hooks ------------------------------------------------------------------------
    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        lines = [f"opconform: backend {self.name} {self.version}, tier {self.tier}"]
        if self.settings:
            lines.append("opconform: settings " + ", ".join(f"{k}={v}" for k, v in sorted(self.settings.items())))
        return [printable(line) for line in lines]

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
                self.refuse(_never_imported(self.config, file_path))
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
        if self.families:
            keep = [it for it in items if not isinstance(it, CaseItem) or it.family in self.families]
            if len(keep) != len(items):
                kept = set(map(id, keep))
                config.hook.pytest_deselected(items=[it for it in items if id(it) not in kept])
                items[:] = keep
        if self.shard is not None:
            from runners.gate import shard_of

            i, n = self.shard
            keep = [it for it in items if not isinstance(it, CaseItem) or shard_of(it.case_name, n) == i]
            if len(keep) != len(items):
                kept = set(map(id, keep))
                config.hook.pytest_deselected(items=[it for it in items if id(it) not in kept])
                items[:] = keep
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
            if item.result.kind in ("node", "graph"):  # for the tiers-met summary (JSON: xdist carries it)
                r = item.result
                family = r.family or r.op or "(no family)"
                rep.opconform_tiers = json.dumps([str(family), r.verdict, r.tiers_met or []])
            item.result = None  # probe outputs can be large: keep them only in the record
        elif call.when == "setup" and rep.skipped:
            rep.opconform_verdict = "skipped"
        if call.when == "setup" and rep.skipped and self.want_records:
            from runners.results import SKIPPED, Result

            reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            reason = reason.removeprefix("Skipped: ")
            record = Result(case=item.case_name, dataset=item.index, kind=_kind_of(item.case_dir), verdict=SKIPPED,
                            message=reason, backend=self.name, backend_version=self.version, tier=self.tier,
                            settings=self.settings).to_record()
        if record is not None:
            record["nodeid"] = item.nodeid
            record["outcome"] = ("xfailed" if rep.skipped and hasattr(rep, "wasxfail") else
                                 "xpassed" if rep.passed and hasattr(rep, "wasxfail") else rep.outcome)
            xfail = item.get_closest_marker("xfail")
            record["xfail"] = xfail.kwargs.get("reason", "") if xfail is not None else None
            # as JSON text: pytest-xdist carries it to the controller, and execnet cannot send every
            # Python int (it fails on ints below -2**31, which probe outputs of int64 hold)
            rep.opconform_record = json.dumps(record, allow_nan=False)
        return rep

    def pytest_runtest_logreport(self, report) -> None:
        verdict = getattr(report, "opconform_verdict", None)
        if verdict is not None and not self.is_worker:
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        record = getattr(report, "opconform_record", None)
        if record is not None and not self.is_worker:
            self.records.append(json.loads(record))
        tiers = getattr(report, "opconform_tiers", None)
        if tiers is not None and not self.is_worker:
            count_tiers(self.tier_counts, *json.loads(tiers))
        if self.baseline is not None and report.when == "call" and not self.is_worker:
            props = dict(report.user_properties)
            name = report.nodeid.rsplit("::", 1)[-1]
            if "opconform_regression" in props:
                self.regressions.append(f"{name} (baseline: {props['opconform_regression']})")
            elif "opconform_baseline" in props:
                from runners.gate import is_better

                base = props["opconform_baseline"]
                if is_better(props["opconform_verdict"], base):
                    self.better.append(f"{name}: {props['opconform_verdict']} (baseline: {base})")

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.isolated is not None:
            self.isolated.close()
        if self.is_worker:  # the controller names what this worker refused (it collects nothing itself)
            self.config.workeroutput["opconform_refused"] = list(self.refused)
            return
        _drop_silent_reports(self.config)
        # the results file first: whatever else fails, the run's verdicts are not lost
        if self.report is not None and self._save(session, "--report", self.report, self._write_report, exitstatus):
            self.written = True
        if self.baseline_path is not None and self.config.getoption("update_baseline"):
            self.baseline_written = self._save(session, "--baseline", self.baseline_path, self._write_baseline)

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
            from runners.gate import GateError

            if isinstance(exc, GateError):  # names the option and the file itself
                line = f"opconform: {_one_line(str(exc))}"
            else:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else _one_line(str(exc))
                line = printable(f"opconform: cannot write {option} {path}: {why or type(exc).__name__}")
            tr = self.config.pluginmanager.get_plugin("terminalreporter")
            if tr is not None:
                tr.write("\n")
                tr.write_line(line, red=True)
            if session.exitstatus == 0:
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return False

    def _write_report(self, exitstatus) -> None:
        from runners.results import write_results

        header = {
            "backend": {"name": self.name, "version": self.version, "settings": self.settings},
            "tier": self.tier,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "args": list(self.config.invocation_params.args),
            "exitstatus": int(exitstatus),
            "xfails_file": self.config.getoption("xfails_file"),
            "skips_file": self.config.getoption("skips_file"),
            "tiers_met_by_family": tiers_met_by_family(self.tier_counts),
            "suites": suites_run(self.config),
            "shard": self.config.getoption("shard"),
        }
        write_results(self.report, self.records, header)

    def _write_baseline(self) -> None:
        from runners.gate import write_baseline

        write_baseline(self.baseline_path, self.records,
                       {"name": self.name, "version": self.version, "settings": self.settings},
                       suites_run(self.config))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        for line in self.refused:
            terminalreporter.write_line(line, yellow=True)
        if self.tier_counts and not self.is_worker:
            for line in tier_summary(self.tier_counts, f"{self.name} {self.version}"):
                terminalreporter.write_line(printable(line))
        if self.written:
            terminalreporter.write_line(printable(f"opconform: results written to {self.report}"))
        if self.baseline_written:
            terminalreporter.write_line(printable(f"opconform: baseline written to {self.baseline_path}"))
        if self.baseline is not None and not self.is_worker:
            tr = terminalreporter
            tr.write_line(printable(f"opconform gate: {len(self.regressions)} regression(s) against "
                                    f"{self.baseline_path}, {len(self.better)} item(s) better than the baseline"))
            from runners.gate import other_suites

            for line in other_suites(self.baseline, suites_run(self.config)):
                tr.write_line(printable(f"  suite changed {line} (changed cases are judged as new)"), yellow=True)
            for line in sorted(self.regressions)[:100]:
                tr.write_line(printable(f"  REGRESSION {line}"), red=True)
            for line in sorted(self.better)[:100]:
                tr.write_line(printable(f"  better     {line}"), green=True)
            if self.better:
                tr.write_line("  (record the improvements with --update-baseline)")


def verdict_line(verdicts: dict[str, int], backend: str) -> str:
    """The run's items per verdict, in the report's order: pytest says only passed / failed / skipped."""
    from runners.report import ORDER

    order = {v: i for i, v in enumerate(ORDER)}
    parts = [f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]
    return f"opconform verdicts on {backend}: {', '.join(parts)}"


def suites_run(config: pytest.Config) -> dict[str, str]:
    """{suite directory: sha256 of its manifest.json} for the suites the arguments name or lie in (a suite,
    a kind folder, a case directory, a model.onnx) or hold as direct subdirectories: what ties a results
    file to the suite it judged (the controller of an xdist run collects nothing, so not from collection)."""
    from generator.serialize import MANIFEST, is_suite
    from runners.results import suite_hash

    base = config.invocation_params.dir
    found: dict[str, str] = {}
    for arg in config.args or ["."]:
        path = Path(os.path.abspath(base / arg.split("::", 1)[0]))
        # the nearest suite the argument is or lies in (no suite further up is read), else the suites it holds
        candidates = [next((c for c in [path, *list(path.parents)[:3]] if is_suite(c)), None)]
        if candidates[0] is None and path.is_dir():
            try:
                candidates = [p for p in path.iterdir() if (p / MANIFEST).is_file()]
            except OSError:
                candidates = []
        for c in filter(None, candidates):
            if is_suite(c) and suite_hash(c):
                found[_relpath(c, base)] = suite_hash(c)
    return dict(sorted(found.items()))


def count_tiers(counts: dict[str, dict[str, int]], family: str, verdict: str, tiers_met: list[str]) -> None:
    """Add one node / graph data set to the per-family counts of the tiers-met summary."""
    c = counts.setdefault(family, {"judged": 0, "unsupported": 0, **{t: 0 for t in TIERS}})
    if verdict in ("unsupported", "skipped"):
        c["unsupported"] += verdict == "unsupported"
        return
    c["judged"] += 1
    for t in tiers_met:
        c[t] += 1


def tiers_met_by_family(counts: dict[str, dict[str, int]]) -> dict[str, dict]:
    """family -> the counts and "met": the tiers in which every judged data set of the family passes."""
    return {family: dict(c, met=[t for t in TIERS if c["judged"] and c[t] == c["judged"]])
            for family, c in sorted(counts.items())}


def tier_summary(counts: dict[str, dict[str, int]], backend: str) -> list[str]:
    """Per family, the data sets passing in each tier and the tiers the backend meets (a tier is met when
    every judged data set of the family passes in it; unsupported data sets are counted apart)."""
    lines = [f"opconform: tiers met per family by {backend} (met: every judged data set passes in that tier)"]
    for family, c in tiers_met_by_family(counts).items():
        met = c["met"]
        parts = [f"{t} {c[t]}/{c['judged']}" for t in TIERS]
        if c["unsupported"]:
            parts.append(f"{c['unsupported']} unsupported")
        lines.append(f"  {family}: {', '.join(parts)} -> {', '.join(met) if met else 'none'}")
    return lines


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


def _read_suite_manifest(path: Path) -> dict | None:
    from generator.serialize import CaseError, SUITE_FORMAT, read_manifest

    try:
        doc = read_manifest(path)
    except CaseError:
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == SUITE_FORMAT else None


def _manifest_index(manifest: dict | None) -> dict:
    """{kind: {name: entry}} of a suite manifest's cases."""
    entries = (manifest or {}).get("cases")
    index: dict[str, dict] = {}
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and isinstance(e.get("kind"), str) and isinstance(e.get("name"), str):
            index.setdefault(e["kind"], {})[e["name"]] = e
    return index


def _checked_meta(case_dir: Path) -> dict:
    """A case's case.json, read as the runner reads it (a regular file of bounded size, every field
    checked), or {} when it has none or a bad one: the run itself reports a bad one as invalid-case."""
    from generator.serialize import CaseError, read_meta

    try:
        found = read_meta(case_dir)
    except CaseError:
        return {}
    return found[0] if found else {}


def _str_or_none(value) -> str | None:
    return value if isinstance(value, str) else None


def _identifier(text: str) -> str:
    """A marker name part -m can spell: letters, digits and underscores."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text)


def _kind_of(case_dir: Path) -> str:
    from generator.case import KINDS

    return case_dir.parent.name if case_dir.parent.name in KINDS else "node"


def _relpath(path: Path, start: Path) -> str:
    try:
        return os.path.relpath(path, start)
    except ValueError:
        return str(path)
