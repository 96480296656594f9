"""What the pytest plugin refuses before a run starts, so that nothing in a suite decides what runs: a suite's
conftest.py is never imported, a pytest configuration file inside a suite refuses the run, and a suite given
without --backend says it needs one (runners/pytest_plugin.py calls these)."""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest

from runners.escape import printable
from runners.suite_tree import SuiteTree, is_case_dir, never_imported, relpath

REFUSED = pytest.StashKey[list]()  # one line for each thing found in a suite and not read (shown at the end)


def guard_conftests(config: pytest.Config) -> None:
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
        line = never_imported(Path(conftestpath), config.invocation_params.dir)
        if line not in refused:  # pytest may ask for one conftest twice (the argument, then its collection)
            refused.append(line)
        return types.ModuleType("conftest")  # an empty module: no hook, no fixture, no option

    pm._importconftest = guarded


def refuse_config_in_suite(config: pytest.Config) -> None:
    """pytest's configuration file must not lie in a suite: its addopts (-k, --deselect, --xfails-file, -p)
    would decide which verdicts count. pytest has applied it already, so the run is refused."""
    ini = config.inipath
    if ini is not None and SuiteTree().root_of(ini.parent) is not None:
        where = relpath(ini, config.invocation_params.dir)
        raise pytest.UsageError(printable(f"{where}: a pytest configuration file inside a suite is never used (its "
                                          "options could drop or excuse cases); run from outside the suite, or "
                                          "name another one with -c"))


def refuse_cases_without_backend(config: pytest.Config) -> None:
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
