"""What gen-cases owns in a suite directory: manifest.json, the kind folders and tables/; every other entry
(a vendor's baseline, ci/notes.md) is not gen-cases' and is kept."""

from __future__ import annotations

import os
from pathlib import Path

from generator import outdir

TABLES = "tables"  # the folder of a suite's tables (kill matrix, a family's extra_files)


def suite_entry(name: str) -> bool:
    """Is an entry of OUT named `name` part of a suite (gen-cases' to replace)? The others are kept."""
    from generator.serialize import KINDS, MANIFEST

    return name == MANIFEST or name == TABLES or name in KINDS


def foreign_entries(out: Path) -> list[str]:
    """The entries of the directory `out` that are not part of a suite ([] if it is no directory)."""
    real = Path(os.path.realpath(out))
    if not real.is_dir():
        return []
    return [n for n in outdir.entries(real) if not suite_entry(n)]


def show_names(names: list[str], most: int = 5) -> str:
    shown = [n if n.isprintable() else ascii(n) for n in names[:most]]
    return ", ".join(shown) + (f" and {len(names) - most} more" if len(names) > most else "")


def suite_files(root: Path) -> set[str]:
    """The files of the suite in root (its entries that are not part of a suite left out)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and suite_entry(p.relative_to(root).parts[0])}
