"""Operator families: each module turns a reference into Case objects (the contract: generator/family.py).

A family module exposes FAMILY, PROFILES (the profile names it knows) and
work(profile, seed, max_opset) -> list of callables, each yielding Cases.
Optionally extra_files(profile, seed, max_opset) -> {relative path: bytes}: files gen-cases writes into
the suite beside the cases (e.g. a table), which --check covers like the cases.

Families are found by their module names here: adding one edits no table.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

# name -> module, every module of this package whose name does not start with "_"
FAMILIES = {m.name: f"{__name__}.{m.name}" for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
            if not m.name.startswith("_")}

PROFILES = ("quick", "default", "exhaustive")


def load(name: str) -> ModuleType:
    return importlib.import_module(FAMILIES[name])
