"""The code's rooms: no import cycles among the project's modules, and no module too long to live in.

Imports inside functions count: a cycle broken only by a late import is still two modules that need each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("generator", "runners")
MAX_LINES = 500

# Modules allowed past MAX_LINES because they are data tables, with the reason.
DATA_TABLES: dict[str, str] = {}

# Today's long modules, each to be split by concern; a line goes when its module is split.
NOT_YET_SPLIT: set[str] = set()


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports, anywhere in its text."""
    edges = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {_resolve(a.name, known) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:  # `from package import module` imports the module
                    full = f"{base}.{a.name}"
                    targets.add(full if full in known else _resolve(base, known))
        edges[name] = targets - {None, name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(imports(modules())) == []


def test_cycle_finder_finds_a_late_import_cycle(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("import b\n")
    b = tmp_path / "b.py"
    b.write_text("def f():\n    from a import x\n")
    assert cycles(imports({"a": a, "b": b})) == [["a", "b"]]


def test_no_module_too_long():
    long = {str(p.relative_to(ROOT)) for p in modules().values()
            if len(p.read_text(encoding="utf-8").splitlines()) > MAX_LINES}
    assert sorted(long - NOT_YET_SPLIT - set(DATA_TABLES)) == []


def test_the_allow_list_holds_no_module_already_split():
    short = sorted(m for m in NOT_YET_SPLIT
                   if not (ROOT / m).exists() or len((ROOT / m).read_text(encoding="utf-8").splitlines()) <= MAX_LINES)
    assert short == []
