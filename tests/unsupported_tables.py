"""The check the adapters' tests share: every entry of an UnsupportedTable is matched by a real message and
documented in docs/backends.md (so a pattern nobody has seen, or nobody can look up, does not creep in)."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs" / "backends.md"


def check_tables(sayings: list[tuple], tables) -> None:
    """sayings: (table, exception, whether it means unsupported); tables: the tables to check."""
    docs = DOCS.read_text(encoding="utf-8")
    for table in tables:
        said = [e for t, e, yes in sayings if t is table and yes]
        for pattern in table.text:
            assert any(re.search(pattern, str(e), re.IGNORECASE) for e in said), pattern
            assert f"`{pattern}`".replace("|", "\\|") in docs, pattern  # escaped in a Markdown table
        for kind in table.types:
            assert any(isinstance(e, kind) for e in said), kind
            assert f"`{kind.__name__}`" in docs, kind
