"""The CI gate: baselines of verdicts, regressions against them, and stable shards of a suite.

A vendor adopts a suite while still failing many cases: `--update-baseline` records each item's
verdict for the backend; later runs with `--baseline` fail only where an item is worse than recorded
(a regression) and list the items now better, so the baseline can be tightened as bugs get fixed.

Verdicts are ranked, best first: pass / probe, unsupported, fail, error, invalid-case, timeout,
crash. "Worse" means a higher rank. An item the baseline does not know (a case new in the suite)
counts as a regression when it fails: the gate never lets an unseen failure through. Neither does a
case whose content changed since its verdict was recorded: it is judged as a new case.

A baseline file records the backend's name, version and settings, the suites its verdicts come from
({suite directory: sha256 of its manifest.json}, as a results file's header has them), and per item its
verdict and the content hash of the case it judged (format 2; format 1 had no content hashes and is still
read; a format-2 file from before "suites" has none):

    {"backend": {...}, "format": "opconform-baseline/2", "suites": {"cases": "<sha256>"},
     "items": {"<case>[<data set>]": {"content": "<sha256>", "verdict": "fail"}, ...}}

one item a line, so that a diff of a committed baseline shows the items that changed. A baseline is
for one backend and one set of settings: a run of another backend or other settings is refused (a
newer version is what a gate is for). Updates lock the file and merge into what it holds at that
moment, so shards can update one baseline at the same time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from pathlib import Path

from runners.results import (CRASH, ERROR, FAIL, INVALID_CASE, PASS, PROBE, TIMEOUT, UNSUPPORTED,
                             check_results_target, differing_settings, jsonable, read_document, settings_text)

BASELINE_FORMAT = "opconform-baseline/2"
OLD_FORMATS = ("opconform-baseline/1",)  # {"verdicts": {item: verdict}}: no content hashes
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


# ---- reading and judging against a baseline -----------------------------------------------------

def read_baseline(path: Path | str) -> dict:
    """{"backend": {...}, "items": {item key: {"verdict", "content"}}} from either format ("content" is
    None where the file has none). GateError (one line) when the file is not a baseline."""
    try:
        doc = read_document(path, (BASELINE_FORMAT, *OLD_FORMATS), "baseline file")
    except ValueError as exc:
        hint = " (create it with --update-baseline)" if "no such" in str(exc) else ""
        raise GateError(f"--baseline {exc}{hint}") from None
    items = _items(doc)
    if items is None:
        raise GateError(f"--baseline {path}: not a baseline file (no items, or an item without a verdict)")
    backend = doc.get("backend") if isinstance(doc.get("backend"), dict) else {}
    suites = doc.get("suites")
    suites = {k: v for k, v in suites.items() if isinstance(v, str)} if isinstance(suites, dict) else {}
    return {"format": BASELINE_FORMAT, "backend": backend, "suites": suites, "items": items}


def _items(doc: dict) -> dict | None:
    """The items of a baseline document of either format, None when malformed."""
    if "items" in doc:
        items = doc["items"]
        ok = isinstance(items, dict) and all(isinstance(e, dict) and isinstance(e.get("verdict"), str)
                                             and (e.get("content") is None or isinstance(e["content"], str))
                                             for e in items.values())
        return {k: {"verdict": e["verdict"], "content": e.get("content")} for k, e in items.items()} if ok else None
    verdicts = doc.get("verdicts")
    if not isinstance(verdicts, dict) or not all(isinstance(v, str) for v in verdicts.values()):
        return None
    return {k: {"verdict": v, "content": None} for k, v in verdicts.items()}


def baseline_verdict(baseline: dict, key: str, content: str | None) -> str | None:
    """The verdict to judge item `key` against: None (as for a new case) when the baseline has none, or
    recorded it for other content of the case. Where either side has no content hash (a format-1
    baseline, a case without case.json) the recorded verdict stands."""
    entry = baseline["items"].get(key)
    if entry is None:
        return None
    if entry["content"] is not None and content is not None and entry["content"] != content:
        return None
    return entry["verdict"]


def no_verdict_reason(baseline: dict, key: str) -> str:
    """Why baseline_verdict gave None, for a regression message: "new" or "changed"."""
    return "changed" if key in baseline["items"] else "new"


def check_baseline_backend(baseline: dict, backend: dict, path: Path | str) -> None:
    """Refuse a baseline recorded for another backend or other settings (GateError, one line). Another
    version of the backend is allowed: comparing versions is what the gate is for."""
    recorded = baseline.get("backend") or {}
    name = backend.get("name")
    if recorded.get("name") not in (None, name):
        raise GateError(f"--baseline {path}: recorded for backend {recorded['name']}, this run is {name} "
                        "(keep one baseline file per backend and settings)")
    if "settings" not in recorded:
        return
    mine, theirs = jsonable(backend.get("settings") or {}), jsonable(recorded["settings"] or {})
    keys = differing_settings([theirs, mine])
    if keys:
        raise GateError(f"--baseline {path}: recorded with settings {settings_text(theirs, keys)}, this run has "
                        f"{settings_text(mine, keys)} (keep one baseline file per backend and settings)")


# ---- checks at the start of a run -----------------------------------------------------------------

def check_output_paths(report: str | os.PathLike | None, baseline: str | os.PathLike | None) -> None:
    """Refuse a --report path that would replace the --baseline file or any file that is not a results
    file (a baseline, a manifest, a user's file). GateError, one line."""
    if not report:
        return
    if baseline and _same_file(Path(report), Path(baseline)):
        raise GateError(f"--report {report}: is the --baseline file (the results would replace the baseline)")
    try:
        check_results_target(report)
    except ValueError as exc:
        raise GateError(f"--report {exc}") from None


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False  # one of them does not exist


def check_baseline_writable(path: str | os.PathLike) -> None:
    """For --update-baseline, before anything runs: the file can be written at the end (its directory
    exists or can be made, the lock file next to it can be made, the file is not read-only)."""
    path = Path(path)
    if path.is_dir():
        raise GateError(f"--baseline {path}: is a directory")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise GateError(f"--baseline {path}: {parent} is not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(_lock_path(path), os.O_RDONLY | os.O_CREAT, 0o644))
    except OSError as exc:
        raise GateError(f"--baseline {path}: cannot be written ({exc.strerror or exc}: "
                        f"{exc.filename or path.parent})") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise GateError(f"--baseline {path}: is read-only")


# ---- writing --------------------------------------------------------------------------------------

def write_baseline(path: Path | str, records: list[dict], backend: dict, suites: dict[str, str] | None = None) -> Path:
    """Record every judged item's verdict and case content, and the suites run (their manifest hashes).
    Under a lock on the file, what the file holds now is read again and this run's items are merged into
    it: items this run did not judge (other shards, -k, skips) keep their entries, even when another
    shard wrote them a moment ago. GateError when the file is no baseline or one of another backend or
    settings."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        items, known = {}, {}
        if path.exists():
            current = read_baseline(path)
            check_baseline_backend(current, backend, path)
            items, known = current["items"], current["suites"]
        for r in records:
            if r.get("verdict") in RANK:
                items[item_key(r["case"], r["dataset"])] = {"verdict": r["verdict"], "content": r.get("content")}
        _replace(path, baseline_text(jsonable(backend), items, {**known, **(suites or {})}))
    return path


def other_suites(baseline: dict, suites: dict[str, str]) -> list[str]:
    """Lines naming the suites of this run whose manifest differs from the one the baseline recorded for the
    same directory: their changed cases are judged as new (a baseline without "suites" names none)."""
    recorded = baseline.get("suites") or {}
    return [f"{d}: baseline recorded on manifest {recorded[d][:12]}, this run has {h[:12]}"
            for d, h in sorted(suites.items()) if d in recorded and recorded[d] != h]


def baseline_text(backend: dict, items: dict[str, dict], suites: dict[str, str] | None = None) -> str:
    """The baseline file: sorted keys, one item a line."""
    text = json.dumps({"backend": backend, "format": BASELINE_FORMAT, "items": "@ITEMS@",
                       "suites": dict(sorted((suites or {}).items()))}, indent=1, sort_keys=True)
    lines = ",\n  ".join(f"{json.dumps(k)}: {json.dumps(e, sort_keys=True)}" for k, e in sorted(items.items()))
    return text.replace('"@ITEMS@"', "{\n  " + lines + "\n }" if items else "{}") + "\n"


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")  # left in place: removing a lock file races its next user


@contextlib.contextmanager
def _locked(path: Path):
    fd = os.open(_lock_path(path), os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _replace(path: Path, text: str) -> None:
    """Write atomically: a reader (a gate run without the lock) sees the old file or the new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---- shards ---------------------------------------------------------------------------------------

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
