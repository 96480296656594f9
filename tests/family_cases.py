"""What the family tests share: a family's cases, and the opconform backend run on them from disk."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from generator.case import Case
from generator.serialize import read_case, write_case
from runners.backends.registry import get_backend
from runners.execute import PreparedCache, run_case_dataset
from runners.results import Result


def generate(module, profile: str = "default", seed: int = 0, max_opset: int | None = None) -> dict[str, Case]:
    """Every case a family module makes, by name (names must be unique)."""
    args = (profile, seed) if max_opset is None else (profile, seed, max_opset)
    out = [c for unit in module.work(*args) for c in unit()]
    by_name = {c.name: c for c in out}
    assert len(by_name) == len(out), "two cases share a name"
    return by_name


def opconform_results(cases, tmp_path: Path) -> Iterator[tuple[Case, Result]]:
    """Each case written to disk, read back and judged on the opconform backend, data set by data set."""
    backend, cache = get_backend("opconform"), PreparedCache()
    for case in cases:
        write_case(case, tmp_path)
        loaded = read_case(tmp_path / case.kind / case.name)
        for i in range(max(loaded.n_datasets, 1)):
            yield case, run_case_dataset(backend, loaded, i, "strict", cache)


def opconform_failures(cases, tmp_path: Path) -> list[str]:
    """The messages of every data set the opconform backend does not pass (a probe is not judged)."""
    return [r.message for _, r in opconform_results(cases, tmp_path) if r.verdict not in ("pass", "probe")]
