"""Operator families: each module turns a reference into Case objects.

A family module exposes FAMILY (its name), PROFILES (the profile names it knows) and
work(profile, seed, max_opset) -> list of callables, each yielding Cases.
Optionally extra_files(profile, seed, max_opset) -> {relative path: bytes}: files gen-cases writes into
the suite beside the cases (e.g. a table), which --check covers like the cases.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# name -> module; one line per family
FAMILIES = {
    "cast": "generator.families.cast",
    "convert_promote_types": "generator.families.convert_promote_types",
    "dynamic_quantize_linear": "generator.families.dynamic_quantize_linear",
    "layout": "generator.families.layout",
    "qlinear_conv": "generator.families.qlinear_conv",
}

PROFILES = ("quick", "default", "exhaustive")


def load(name: str) -> ModuleType:
    return importlib.import_module(FAMILIES[name])
