"""The pytest nodes of a suite (runners/pytest_plugin.py): the folders that hold cases, a case directory, its
model, and an item per data set. Collection walks a suite by itself (one listing per folder, no pytest hook per
case) and never hands a file inside a suite to pytest's collectors: a suite is data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from runners.escape import has_unsafe, printable
from runners.suite_tree import (MANIFEST_ITEM, Selection, count_datasets, entry_problem, is_model, kind_of,
                                manifest_entries, never_imported, relpath, scan_case)

PLUGIN_NAME = "opconform-run"
SELECTION = pytest.StashKey[Selection]()


class CaseFailure(Exception):
    """Raised by an item whose verdict is a failure; carries the Result."""

    def __init__(self, result):
        super().__init__(result.message)
        self.result = result


class _Crash:
    """What pytest's short summary and junitxml read from a failure: its one-line message."""

    def __init__(self, path: str, lineno: int, message: str):
        self.path, self.lineno, self.message = path, lineno, message

    def __str__(self) -> str:  # --tb=line prints it
        return f"{self.path}: {self.message}"


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


def _run(config):
    """The plugin's OpconformRun (runners.pytest_plugin) of this session."""
    return config.pluginmanager.get_plugin(PLUGIN_NAME)


def selection(config) -> Selection:
    """The run's --family and --shard."""
    if SELECTION not in config.stash:
        core = _run(config).core
        config.stash[SELECTION] = Selection(core.families, core.shard)
    return config.stash[SELECTION]


def deselect(config, items: list) -> None:
    """--family and --shard on the items collected: collection left out already the cases its suite's
    manifest places elsewhere (Selection.drops); what is left here are the cases whose family only case.json
    says (plain ONNX node tests have none) and the ones given by name. pytest is told of each left out."""
    chosen = selection(config)
    if not chosen:
        return
    keep = [it for it in items if not isinstance(it, CaseItem) or chosen.keeps(it.case_name, it.family, it.suite_wide)]
    if len(keep) != len(items):
        kept = set(map(id, keep))
        config.hook.pytest_deselected(items=[it for it in items if id(it) not in kept])
        items[:] = keep


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
            where = relpath(self.path, self.config.invocation_params.dir)
            yield UnreadCaseItem.unread(self, self.path, self.path.name, kind_of(self.path),
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
        if self.suite == self.path:
            yield from self._refused_manifest()

    def _refused_manifest(self):
        """The one item saying this suite's manifest.json is refused (too large, listing too many cases,
        corrupt ...): its cases on disk run as those of a suite without a manifest, and the run fails."""
        run = _run(self.config)
        problem = run.manifest_refusal(self.path)
        if problem is not None:
            where = self.path / "manifest.json"
            shown = relpath(where, self.config.invocation_params.dir)
            item = UnreadCaseItem.unread(self, where, MANIFEST_ITEM, "node",
                                         f"{shown}: {problem} (the suite's cases on disk are run without it)")
            item.suite_wide = True
            yield item

    def _in_suite(self, e, path: Path, as_nodes: bool):
        """One entry of a folder of a suite: a case directory, a folder to walk, or nothing (a suite is data)."""
        config, run = self.config, _run(self.config)
        if not e.is_dir():
            if e.name.endswith(".py"):
                run.refuse(never_imported(path, config.invocation_params.dir))
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
                run.refuse(printable(f"opconform: {relpath(path, config.invocation_params.dir)}: a folder whose "
                                     "name holds control or bidi characters is not read"))
                return
            listed = run.manifest(path) is not None  # a suite of its own: its manifest is checked too
            nested = listed or run.manifest_refusal(path) is not None
            d = (SuiteDir if listed else CasesDir).from_parent(self, path=path)
            d.suite, d.seen = path if nested else self.suite, self.seen | {os.path.realpath(path)}
            yield d
            return
        entry = run.case_entries(self.path).get(e.name)
        if not as_nodes and selection(config).drops(printable(e.name), entry):
            return  # another family or shard, as the manifest says: no node made (pytest would deselect it)
        d = CaseDir.from_parent(self, name=printable(e.name), path=path, nodeid=_child_id(self, printable(e.name)))
        d.n_datasets = n
        run.mark_case(d, entry)
        if as_nodes:
            yield d
        else:  # the items straight away: no collection round per case directory and model
            yield from d.items()

    def _may_follow(self, path: Path) -> bool:
        """A linked folder is walked only when it stays inside the suite and is none of the folders the walk
        is in already (a loop). One line for each link not followed."""
        real, root = os.path.realpath(path), os.path.realpath(self.suite)
        where = relpath(path, self.config.invocation_params.dir)
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
        run, chosen = _run(self.config), selection(self.config)
        root = str(self.path)
        for e in manifest_entries(run.manifest(self.path)):
            if chosen.drops(printable(e["name"]), e):
                continue
            problem = entry_problem(e)
            if problem is None:
                if is_model(os.path.join(root, e["kind"], e["name"], "model.onnx")):
                    continue
                where = self.path / e["kind"] / e["name"]
                problem = (f"{relpath(where / 'model.onnx', self.config.invocation_params.dir)}: missing file "
                           "(the suite's manifest.json lists the case)")
                item = UnreadCaseItem.unread(self, where, e["name"], e["kind"], problem)
            else:
                where = self.path / "manifest.json"
                problem = f"{relpath(where, self.config.invocation_params.dir)}: {problem}"
                item = UnreadCaseItem.unread(self, where, e["name"], "node", problem)
            run.mark_case(item, e)
            yield item


class CaseItem(_InCase, pytest.Item):
    suite_wide = False  # the item of a whole suite (its refused manifest): selected with every family

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

        run = _run(self.config)
        self.result = run.execute(self)
        self.user_properties.append(("opconform_verdict", self.result.verdict))
        if self.result.verdict in (PASS, PROBE):
            run.gate(self)
            return
        if self.result.kind == "probe" and self.result.verdict in (CRASH, TIMEOUT):
            return  # undefined input: a crash is recorded for the report, never judged
        if self.result.verdict == UNSUPPORTED:
            from runners.execute import unsupported_reason

            if run.gate(self):
                raise CaseFailure(self.result)  # lost support: a regression against the baseline
            pytest.skip(printable(f"unsupported: {unsupported_reason(self.result.error)}"))
        run.gate(self)
        raise CaseFailure(self.result)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailure):
            r = excinfo.value.result
            return CaseFailureRepr(f"[{r.verdict}] {r.message}", self.case_dir)
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # a known failure (the gate's xfail): its reason, not a traceback of this plugin, whose source pytest
            # would read and format for every one (0.2 s each: 79 of the 96 s of a cast gate run)
            return CaseFailureRepr(str(excinfo.value), self.case_dir)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, 0, self.name


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
        run = _run(self.config)
        self.result = run.core.unread(self.case_name, self.kind, self.problem)
        self.user_properties.append(("opconform_verdict", self.result.verdict))
        run.gate(self)
        raise CaseFailure(self.result)

    def reportinfo(self):
        return Path(printable(os.fspath(self.where))), 0, self.name
