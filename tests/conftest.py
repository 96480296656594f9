"""Fixtures shared by the project's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import configuration

HERE = Path(__file__).resolve().parent
COMMITTED_NODES = HERE.parent / "cases" / "node"


def copied_node_cases(pytester, monkeypatch, names) -> Path:
    """A folder `s` of copies of the committed node cases `names` (copies: a link out of a suite is not
    followed), with tests/ on sys.path for the fixture backends."""
    monkeypatch.syspath_prepend(str(HERE))
    root = pytester.path / "s"
    root.mkdir()
    for name in names:
        shutil.copytree(COMMITTED_NODES / name, root / name)
    return root


def copied_suite(pytester, monkeypatch, names) -> Path:
    """A suite `s` of copies of the committed node cases `names` under node/, with a manifest listing them (whole
    suite runs), and tests/ on sys.path for the fixture backends."""
    import json

    from generator.serialize import SUITE_FORMAT

    monkeypatch.syspath_prepend(str(HERE))
    root = pytester.path / "s"
    (root / "node").mkdir(parents=True)
    for name in names:
        shutil.copytree(COMMITTED_NODES / name, root / "node" / name)
    (root / "manifest.json").write_text(json.dumps({"format": SUITE_FORMAT, "cases": [
        {"name": name, "kind": "node"} for name in names]}))
    return root


@pytest.fixture(scope="module")
def hypothesis_home(tmp_path_factory):
    """hypothesis keeps its caches in a temporary directory, not .hypothesis/ in the working directory."""
    configuration.set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    configuration.set_hypothesis_home_dir(None)
