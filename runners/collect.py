"""The items of the suites `opconform run` is given, found as the pytest plugin finds them (same items, same
node ids, same invalid-case items for what a suite's manifest lists and the disk lacks), without pytest: one
listing per folder, no Python file of a suite imported, a link leaving the suite or looping back not
followed, a folder or case whose name holds control characters refused (one line each)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from runners.escape import has_unsafe, printable
from runners.suite_tree import (MANIFEST_ITEM, Manifests, Selection, SuiteTree, checked_meta, entry_problem,
                                is_case_dir, is_model, kind_of, manifest_entries, never_imported, relpath, scan_case)


@dataclass
class Item:
    """One data set of one case (or one case not read: `problem` says why, with its `kind`)."""

    case_dir: Path
    case_name: str
    index: int
    nodeid: str
    listed: dict | None = None  # the case's entry in its suite's manifest
    family: str | None = None  # for --family
    problem: str | None = None
    kind: str = "node"

    @property
    def name(self) -> str:
        return self.nodeid.rsplit("::", 1)[-1]


def rootdir(args: list[str], base: Path) -> Path:
    """The directory node ids are relative to: pytest's own rootdir for these arguments (so that both runners
    name an item alike)."""
    try:
        from _pytest.config.findpaths import determine_setup

        return Path(determine_setup(inifile=None, override_ini=None, args=list(args), rootdir_cmd_arg=None,
                                    invocation_dir=base)[0])
    except Exception:  # noqa: BLE001 - another pytest: the invocation directory
        return base


class Collector:
    """Walks the arguments; `items` in run order, `refused` the lines for what was not read."""

    def __init__(self, base: Path, root: Path, manifests: Manifests | None = None, chosen: Selection | None = None):
        self.base, self.root = base, root
        self.tree = SuiteTree()
        self.manifests = manifests or Manifests()
        self.chosen = chosen or Selection()
        self.items: list[Item] = []
        self.refused: list[str] = []

    def refuse(self, line: str) -> None:
        if line not in self.refused:
            self.refused.append(line)

    def _id(self, path: Path) -> str:
        rel = os.path.relpath(path, self.root)
        return "" if rel == "." else Path(rel).as_posix()

    def add(self, arg: str) -> None:
        path = Path(os.path.abspath(self.base / arg))
        if path.name == "model.onnx" and is_model(path):
            path = path.parent
        if is_case_dir(path):
            entry = self.manifests.case_entries(path.parent).get(path.name)
            self._case(path, self._id(path), scan_case(path) or 0, entry)
            return
        suite = self.tree.root_of(path)
        if suite is None:  # a folder of suites (or of nothing): each suite it holds
            for e in self._entries(path):
                if e.is_dir(follow_symlinks=False):
                    self.add(e.path)
            return
        self._folder(path, suite, frozenset({os.path.realpath(path)}),
                     whole=suite == path and self.manifests.manifest(path) is not None)

    def _entries(self, path: Path) -> list:
        try:
            with os.scandir(path) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError:
            return []

    def _folder(self, path: Path, suite: Path, seen: frozenset, whole: bool) -> None:
        """A folder of a suite (CasesDir; SuiteDir when `whole`: then the manifest's cases missing on disk too)."""
        folder_id = entries = None
        for e in self._entries(path):
            sub = Path(e.path)
            if not e.is_dir():
                if e.name.endswith(".py"):
                    self.refuse(never_imported(sub, self.base))
                continue
            if e.is_symlink() and not self._may_follow(sub, suite, seen):
                continue
            n = scan_case(e.path)
            if n is None:
                if has_unsafe(e.name):
                    self.refuse(printable(f"opconform: {relpath(sub, self.base)}: a folder whose name holds control "
                                          "or bidi characters is not read"))
                    continue
                listed = self.manifests.manifest(sub) is not None  # a suite of its own: its manifest is checked too
                nested = listed or self.manifests.refusal(sub) is not None
                self._folder(sub, sub if nested else suite, seen | {os.path.realpath(sub)}, listed)
                continue
            if folder_id is None:
                folder_id, entries = self._id(path), self.manifests.case_entries(path)
            shown = e.name if e.name.isprintable() else printable(e.name)  # (isprintable: nothing to escape)
            entry = entries.get(e.name)
            if not self.chosen.drops(shown, entry):  # (a case of another family or shard is not even listed)
                self._case(sub, f"{folder_id}/{shown}" if folder_id else shown, n, entry)
        if whole:
            self._missing(path)
        if path == suite:
            self._refused_manifest(suite)

    def _may_follow(self, path: Path, suite: Path, seen: frozenset) -> bool:
        real, root = os.path.realpath(path), os.path.realpath(suite)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            problem = "a link that leaves the suite is not followed"
        elif any(s == real or s.startswith(real.rstrip(os.sep) + os.sep) for s in seen):
            problem = "a link loop (to a folder above it) is skipped"
        else:
            return True
        self.refuse(printable(f"opconform: {relpath(path, self.base)}: {problem}"))
        return False

    def _case(self, path: Path, nodeid: str, n: int, entry: dict | None) -> None:
        """The items of one case directory, marked with its family as the plugin marks it."""
        fields = entry
        unsafe = not path.name.isprintable() and has_unsafe(path.name)
        if entry is None or "family" not in entry:
            fields = checked_meta(path) if not unsafe else (entry or {})
        family = fields.get("family") if isinstance(fields.get("family"), str) else None
        if not self.chosen.keeps(printable(path.name), family):
            return
        if unsafe:  # its name would reach the terminal raw: one item saying so, nothing read
            shown = printable(path.name)
            problem = printable(f"{relpath(path, self.base)}: the case directory's name holds control or bidi "
                                "characters (refused, not read)")
            self.items.append(Item(path, shown, 0, f"{nodeid}::{shown}[0]", None, family, problem, kind_of(path)))
            return
        for i in range(max(n, 1)):
            self.items.append(Item(path, path.name, i, f"{nodeid}/model.onnx::{path.name}[{i}]", entry, family))

    def _missing(self, suite: Path) -> None:
        """An invalid-case item for every case the suite's manifest lists that is not on disk, and for every
        entry naming no case directory of the suite."""
        root = str(suite)
        for e in manifest_entries(self.manifests.manifest(suite)):
            family = e.get("family") if isinstance(e.get("family"), str) else None
            if not self.chosen.keeps(printable(e["name"]), family):
                continue
            problem = entry_problem(e)
            if problem is None:
                if is_model(os.path.join(root, e["kind"], e["name"], "model.onnx")):
                    continue
                where, kind = suite / e["kind"] / e["name"], e["kind"]
                problem = (f"{relpath(where / 'model.onnx', self.base)}: missing file "
                           "(the suite's manifest.json lists the case)")
            else:
                where, kind = suite / "manifest.json", "node"
                problem = f"{relpath(where, self.base)}: {problem}"
            shown = printable(e["name"])
            self.items.append(Item(where, shown, 0, f"{self._id(suite)}::{shown}[0]", e, family, printable(problem),
                                   kind))

    def _refused_manifest(self, suite: Path) -> None:
        """The one item saying the suite's manifest.json is refused, as the plugin's (selected with every family)."""
        problem = self.manifests.refusal(suite)
        if problem is not None and self.chosen.keeps(MANIFEST_ITEM, None, suite_wide=True):
            where = suite / "manifest.json"
            problem = f"{relpath(where, self.base)}: {problem} (the suite's cases on disk are run without it)"
            self.items.append(Item(where, MANIFEST_ITEM, 0, f"{self._id(suite)}::{MANIFEST_ITEM}[0]", None, None,
                                   printable(problem), "node"))


def collect(args: list[str], base: Path, manifests: Manifests | None = None, chosen: Selection | None = None
            ) -> tuple[list[Item], list[str]]:
    """(the items of the arguments, in run order; the lines naming what was not read). manifests: the run's
    (each suite's manifest is parsed once); chosen: --family and --shard, applied as each case is found (a
    case its suite's manifest places elsewhere is not even listed)."""
    c = Collector(base, rootdir(args, base), manifests, chosen)
    for arg in args:
        c.add(arg)
    return c.items, c.refused
