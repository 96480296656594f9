"""What `opconform hunt` is asked to do (Plan), and an option that cannot be met refused before the search."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from generator import families as family_registry
from runners.input_modes import DEFAULT, RunMode

DEFAULT_MAX_EXAMPLES = 1000  # per family, when neither --max-examples nor --budget is given


class HuntUsageError(Exception):
    """A bad option or target (one line; exit 2)."""


@dataclass
class Plan:
    backend: str
    options: dict[str, str]
    families: list[str]
    max_examples: int | None
    budget: float | None  # seconds per family
    seed: int
    tier: str
    max_opset: int
    database: Path | None
    only: list[str] = field(default_factory=list)  # globs of slice labels (--only); [] = every slice
    mode: RunMode = DEFAULT  # how each example's model is built (--inputs, --shapes; runners/input_modes.py)


def select(slices: dict, only: list[str]) -> dict:
    """The slices whose label matches one of the globs (all of them without globs)."""
    if not only:
        return slices
    return {label: s for label, s in slices.items() if any(fnmatch.fnmatchcase(label, g) for g in only)}


def check_only(families: list[str], only: list[str], max_opset: int) -> None:
    """Every family hunted must have a slice --only selects (else the hunt would search nothing there)."""
    from generator.hunting import slices_of

    if not only:
        return
    for name in families:
        labels = list(slices_of(family_registry.load(name), max_opset))
        if not select(dict.fromkeys(labels), only):
            shown = ", ".join(labels[:6]) + (", ..." if len(labels) > 6 else "")
            raise HuntUsageError(f"--only {' '.join(only)}: no slice of {name} matches (its slices: {shown})")
