"""What `opconform hunt` finds, and how two failures are told apart: a failure's signature (the fault models that
reproduce it, else the shape of the mismatch, an error's blanked message ...), a case's parameter group, and the
records of findings, probes and each family's counts."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field

from generator import faults as fault_models
from generator.case import Case
from runners.results import CRASH, ERROR, FAIL, Result


def _blank(text: str, width: int = 300) -> str:
    """A message with what varies from input to input blanked: quoted names, hex, numbers."""
    text = " ".join(str(text).split())
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"0x[0-9a-fA-F]+", "\0", text)
    text = re.sub(r"\d+(\.\d+)?([eE][+-]?\d+)?", "N", text)
    return text.replace("\0", "0x…")[:width]


def _number(v):
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def mismatch_class(m: dict) -> str:
    """How one mismatching element differs, in words that do not depend on its values."""
    e, a = _number(m.get("expected")), _number(m.get("actual"))
    if e is None or a is None:
        return "other text" if isinstance(m.get("actual"), str) else "not a number"
    if math.isnan(e) != math.isnan(a):
        return "NaN expected, a number returned" if math.isnan(e) else "NaN returned for a number"
    if math.isinf(e) != math.isinf(a):
        return "infinity expected, finite returned" if math.isinf(e) else "infinity returned for a finite value"
    if e == a:
        return "the sign of zero" if e == 0 else "the same value with other bits"
    if e == 0 or a == 0:
        return "zero returned" if a == 0 else "zero expected"
    if (e < 0) != (a < 0):
        return "the sign"
    if float(e).is_integer() and float(a).is_integer() and abs(a - e) == 1:
        return f"off by {a - e:+.0f}"
    return "larger magnitude" if abs(a) > abs(e) else "smaller magnitude"


def signature(r: Result) -> frozenset[str] | str:
    """The diagnosis (a set of fault names) where a fault model reproduces the outputs, else the shape of the
    failure as a string."""
    if r.verdict == FAIL and r.diagnosis:
        return frozenset(r.diagnosis)
    if r.verdict == FAIL and r.kind == "negative":
        return "accepts a model it must refuse"
    if r.verdict == FAIL and r.mismatches:
        return "; ".join(sorted({f"{m.get('output')}: {mismatch_class(m)}" for m in r.mismatches}))
    if r.verdict == FAIL:
        first = r.message.split(": ", 1)[-1].splitlines()[0] if r.message else ""
        return _blank(first)
    if r.verdict == ERROR:
        return f"error: {_blank(r.error or r.message)}"
    if r.verdict == CRASH:
        return f"crash: {r.error or 'the worker died'}"
    return r.verdict  # timeout


def describe_signature(sig: frozenset[str] | str) -> str:
    return "consistent with " + ", ".join(sorted(sig)) if isinstance(sig, frozenset) else sig


def same_finding(a: frozenset[str] | str, b: frozenset[str] | str) -> bool:
    """One cause: equal shapes, or diagnoses that share a fault model."""
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return bool(a & b)
    return a == b


def group_of(meta: dict) -> str:
    """The parameter group of a case: its family's fault-module group_key, else its params and opset."""
    mod = fault_models.module(meta["family"])
    if mod is not None:
        try:
            return mod.group_key(meta)
        except Exception:  # noqa: BLE001 - a group the fault module does not know: fall back
            pass
    return json.dumps(fault_models.group_params(meta), sort_keys=True)


@dataclass
class Finding:
    family: str
    group: str
    signature: frozenset[str] | str
    case: Case
    result: Result
    args: dict | None
    example: int  # how many examples of its family had run when it was found
    hits: int = 1  # examples of the hunt it explains (after the first, while searching for others)
    shrink_steps: int = 0  # runs hypothesis made to shrink it
    flaky: bool = False  # the backend did not fail the same way again when hypothesis replayed it


@dataclass
class Probe:
    family: str
    group: str
    reasons: tuple[str, ...]
    case: Case
    result: Result | None


@dataclass
class FamilyStats:
    family: str
    examples: int = 0  # generated examples run on the backend
    shrink_steps: int = 0  # runs while shrinking
    verdicts: dict = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""
    t0: float = field(default_factory=time.monotonic)
