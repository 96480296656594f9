"""The CI gate: baselines of verdicts, regressions against them, and stable shards of a suite.

A vendor adopts a suite while still failing many cases: `--update-baseline` records each item's
verdict for the backend; later runs with `--baseline` fail only where an item is worse than recorded
(a regression) and list the items now better, so the baseline can be tightened as bugs get fixed.

Verdicts are ranked, best first: pass / probe, unsupported, fail, error, invalid-case, timeout,
crash. "Worse" means a higher rank. An item the baseline does not know (a case new in the suite)
counts as a regression when it fails: the gate never lets an unseen failure through.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from runners.results import CRASH, ERROR, FAIL, INVALID_CASE, PASS, PROBE, TIMEOUT, UNSUPPORTED, read_document

BASELINE_FORMAT = "opconform-baseline/1"
RANK = {PASS: 0, PROBE: 0, UNSUPPORTED: 1, FAIL: 2, ERROR: 3, INVALID_CASE: 4, TIMEOUT: 5, CRASH: 6}


class GateError(Exception):
    """A baseline or shard option that cannot be used; str() is one line."""


def item_key(case: str, dataset: int) -> str:
    return f"{case}[{dataset}]"


def is_worse(verdict: str, baseline: str | None) -> bool:
    """A regression: worse than the baseline's verdict, or failing where the baseline has none."""
    if verdict not in RANK:
        return False  # skipped / deselected: nothing to judge
    if baseline is None:
        return RANK[verdict] >= RANK[FAIL]
    return RANK[verdict] > RANK.get(baseline, RANK[CRASH])


def is_better(verdict: str, baseline: str | None) -> bool:
    return baseline is not None and verdict in RANK and RANK[verdict] < RANK.get(baseline, RANK[CRASH])


def read_baseline(path: Path | str) -> dict:
    """{"backend": {...}, "verdicts": {item key: verdict}}."""
    try:
        doc = read_document(path, BASELINE_FORMAT, "baseline file")
    except ValueError as exc:
        hint = " (create it with --update-baseline)" if "no such" in str(exc) else ""
        raise GateError(f"--baseline {exc}{hint}") from None
    if not isinstance(doc.get("verdicts"), dict):
        raise GateError(f"--baseline {path}: not a baseline file (no verdicts)")
    return doc


def write_baseline(path: Path | str, records: list[dict], backend: dict, previous: dict | None = None) -> Path:
    """Record every judged item's verdict. Items this run did not judge (other shards, -k, skips)
    keep what the previous baseline said, so shards can update one baseline in turn."""
    verdicts = dict((previous or {}).get("verdicts", {}))
    for r in records:
        if r.get("verdict") in RANK:
            verdicts[item_key(r["case"], r["dataset"])] = r["verdict"]
    doc = {"format": BASELINE_FORMAT, "backend": backend, "verdicts": dict(sorted(verdicts.items()))}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def parse_shard(text: str) -> tuple[int, int]:
    """"I/N" with 1 <= I <= N -> (I, N)."""
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise GateError(f"--shard {text}: expected I/N, e.g. 2/4") from None
    if not 1 <= i <= n:
        raise GateError(f"--shard {text}: need 1 <= I <= N")
    return i, n


def shard_of(case: str, n: int) -> int:
    """The shard (1..n) of a case: a hash of its name, so the split is stable across runs, machines
    and suite changes, and every data set of a case lands in one shard (compiled once)."""
    digest = hashlib.sha256(case.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n + 1
