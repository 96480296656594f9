"""What a suite holds on disk, read as both runners read it (the pytest plugin and `opconform run`): which
suite a folder lies in, which folders are case directories and how many data sets each has, a suite's
manifest and its entries, a case's case.json as far as selecting needs it. No pytest here."""

from __future__ import annotations

import os
from pathlib import Path

from runners.escape import printable


def relpath(path: Path | str, start: Path | str) -> str:
    try:
        return os.path.relpath(path, start)
    except ValueError:
        return str(path)


def never_imported(path: Path, base: Path) -> str:
    """The line naming a Python file inside a suite, which is never imported."""
    return printable(f"opconform: {relpath(path, base)}: a Python file inside a suite is never imported "
                     "(a suite is data)")


def is_model(path: Path | str) -> bool:
    """Whether `path` is a case's model.onnx entry: anything but a directory. A FIFO, a socket or a dangling
    link makes its folder a case all the same (one invalid-case item naming it: a case must not vanish
    because its model is no regular file); only reading decides, and never by opening a FIFO blocking."""
    return os.path.lexists(path) and not os.path.isdir(path)


def is_case_dir(path: Path) -> bool:
    """A directory holding one case: model.onnx (ours carry case.json too; onnx's own tests do not)."""
    return is_model(path / "model.onnx")


def _is_node_test(path: Path) -> bool:
    """A case directory that is a node test: model.onnx with case.json or a data set. Guessing a suite without
    its manifest asks this of a folder, its parent and the folders beside: a user's model (model.onnx alone, as
    --from-model reads it, even one left in /tmp) must not make the folders around it a suite."""
    return is_case_dir(path) and (os.path.lexists(path / "case.json") or bool(scan_case(path)))


def count_datasets(path: Path) -> int:
    return scan_case(path) or 0


def scan_case(path) -> int | None:
    """How many test_data_set_<i> directories the case at `path` has, or None when `path` is not a case
    directory (no model.onnx entry, or a directory of that name: is_model). One directory listing, no stat
    per entry."""
    model, n = False, 0
    try:
        with os.scandir(path) as entries:
            for e in entries:
                if e.name == "model.onnx":
                    model = not e.is_dir()
                elif e.name.startswith("test_data_set_") and e.is_dir():
                    n += 1
    except OSError:
        return None
    return n if model else None


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
            found = a.parent if _is_node_test(a) else a if self.holds_cases(a) else None
            if found is not None:  # a kind folder's suite is the folder above it, with a manifest or not
                return found.parent if found.name in KINDS else found
            if any(self.holds_cases(a / k) for k in KINDS):  # a suite without its manifest (a copied subset)
                return a
        return None

    def holds_cases(self, directory: Path) -> bool:
        if directory not in self._holds:
            try:
                with os.scandir(directory) as it:
                    self._holds[directory] = any(e.is_dir() and _is_node_test(Path(e.path)) for e in it)
            except OSError:
                self._holds[directory] = False
        return self._holds[directory]


def read_suite_manifest(path: Path) -> tuple[dict | None, str | None]:
    """(the manifest.json of the suite at `path`, None); (None, why it is refused) when there is one that
    cannot be read (not a regular file, over the size or case limits of generator/case_reader.py, corrupt);
    (None, None) when there is none, or one of another format than a suite's."""
    from generator.serialize import MANIFEST, SUITE_FORMAT, CaseError, read_manifest

    if not os.path.lexists(os.path.join(path, MANIFEST)):
        return None, None
    try:
        doc = read_manifest(path)
    except CaseError as exc:
        return None, exc.problem
    return (doc, None) if isinstance(doc, dict) and doc.get("format") == SUITE_FORMAT else (None, None)


def manifest_index(manifest: dict | None) -> dict:
    """{kind: {name: entry}} of a suite manifest's cases."""
    entries = (manifest or {}).get("cases")
    index: dict[str, dict] = {}
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and isinstance(e.get("kind"), str) and isinstance(e.get("name"), str):
            index.setdefault(e["kind"], {})[e["name"]] = e
    return index


def manifest_entries(manifest: dict | None) -> list[dict]:
    """The entries of a suite manifest that name a case (a dict with a str name and kind), in order."""
    entries = (manifest or {}).get("cases")
    return [e for e in (entries if isinstance(entries, list) else ())
            if isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("kind"), str)]


def entry_problem(entry: dict) -> str | None:
    """Why a manifest entry names no case directory of its suite, or None."""
    from generator.case import KINDS

    kind, name = entry["kind"], entry["name"]
    if kind not in KINDS:
        return f"case {name!r}: kind {kind!r} is none of {', '.join(KINDS)} (refused, nothing read)"
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        return f"case {name!r}: the name is no plain directory name (refused, nothing read)"
    return None


def checked_meta(case_dir: Path) -> dict:
    """A case's case.json, read as the runner reads it (a regular file of bounded size, every field
    checked), or {} when it has none or a bad one: the run itself reports a bad one as invalid-case."""
    from generator.serialize import CaseError, read_meta

    try:
        found = read_meta(case_dir)
    except CaseError:
        return {}
    return found[0] if found else {}


def str_or_none(value) -> str | None:
    return value if isinstance(value, str) else None


def kind_of(case_dir: Path) -> str:
    """The kind a case's folder says (node outside a suite's kind folders)."""
    from generator.case import KINDS

    return case_dir.parent.name if case_dir.parent.name in KINDS else "node"


class Manifests:
    """The manifests of the suites a run reads, each read once, and their entries by kind folder."""

    def __init__(self):
        self._manifests: dict[str, tuple[dict | None, str | None]] = {}  # dir -> read_suite_manifest(dir)
        self._indexes: dict[str, dict] = {}  # suite dir -> {kind: {name: manifest entry}}

    def _read(self, path: Path) -> tuple[dict | None, str | None]:
        key = str(path)
        if key not in self._manifests:
            self._manifests[key] = read_suite_manifest(path)
        return self._manifests[key]

    def manifest(self, path: Path) -> dict | None:
        """The manifest of the suite at `path` (read once), or None when `path` is not a suite."""
        return self._read(path)[0]

    def refusal(self, path: Path) -> str | None:
        """Why the manifest.json at `path` is refused (the suite is then read as one without its manifest, and
        one invalid-case item says so), or None."""
        return self._read(path)[1]

    def case_entries(self, folder: Path) -> dict:
        """{case name: manifest entry} of the cases in `folder` when it is a kind folder of a suite, else {}."""
        suite, kind = os.path.split(folder)
        index = self._indexes.get(suite)
        if index is None:
            index = self._indexes[suite] = manifest_index(self.manifest(Path(suite)))
        return index.get(kind, {})


MANIFEST_ITEM = "manifest.json"  # the case name of the item saying a suite's manifest is refused


class Selection:
    """--family and --shard, as both runners select: a case runs when its family is one of --family (any
    without it) and its name falls in --shard I/N. A suite's refused manifest (`suite_wide`) goes with every
    family: it concerns them all."""

    def __init__(self, families=(), shard: tuple[int, int] | None = None):
        self.families, self.shard = frozenset(families), shard

    def __bool__(self) -> bool:
        return bool(self.families) or self.shard is not None

    def keeps(self, name: str, family: str | None, suite_wide: bool = False) -> bool:
        """Whether the case `name` (as its items show it) of family `family` is selected."""
        return (suite_wide or not self.families or family in self.families) and self.in_shard(name)

    def in_shard(self, name: str) -> bool:
        if self.shard is None:
            return True
        from runners.gate import shard_of

        i, n = self.shard
        return shard_of(name, n) == i

    def drops(self, name: str, entry: dict | None) -> bool:
        """Whether a case is certainly not selected before anything of it is read (a whole suite's --family
        run made every case's nodes first): its shard is another, or its suite's manifest entry says a family
        (as the runners take it, str_or_none) that --family leaves out. A case whose family only its case.json
        says is collected, then selected by keeps."""
        if entry is not None and "family" in entry:
            return not self.keeps(name, str_or_none(entry["family"]))
        return not self.in_shard(name)


def disagreement(result, case_name: str, case_dir: Path, listed: dict | None) -> str | None:
    """Why a case read cleanly is still not the one the run selected, or None: an item is known by its
    directory (case.json must name the same case), and case.json must say the kind of the folder the case
    lies in and the family, op and kind the suite's manifest lists for it (--family and -m select by those)."""
    from generator.case import KINDS
    from runners.results import INVALID_CASE

    if result.verdict == INVALID_CASE:
        return None
    if result.case != case_name:
        return f"case.json names the case {result.case!r}, its directory is {case_name!r}"
    folder = case_dir.parent.name
    if folder in KINDS and result.kind != folder:
        return f"case.json says kind {result.kind!r}, the case lies in the kind folder {folder!r}"
    for field in ("kind", "family", "op"):
        value = (listed or {}).get(field)
        if value is not None and value != getattr(result, field):
            return f"case.json says {field} {getattr(result, field)!r}, the suite's manifest.json {value!r}"
    return None
