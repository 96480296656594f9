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

one item a line, so that a diff of a committed baseline shows the items that changed. A baseline is read
strictly: a verdict the gate does not rank ("FAIL", "crashed"), a field missing or of the wrong type, or JSON
nested too deep is a usage error naming the line, never a verdict that lets a regression through. A baseline is
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
import re
from pathlib import Path

from runners.escape import printable
from runners.results import (CRASH, ERROR, FAIL, INVALID_CASE, PASS, PROBE, TIMEOUT, UNSUPPORTED,
                             check_results_target, differing_settings, jsonable, read_document, read_regular,
                             settings_text, write_atomically)

BASELINE_FORMAT = "opconform-baseline/2"
OLD_FORMATS = ("opconform-baseline/1",)  # {"verdicts": {item: verdict}}: no content hashes
RANK = {PASS: 0, PROBE: 0, UNSUPPORTED: 1, FAIL: 2, ERROR: 3, INVALID_CASE: 4, TIMEOUT: 5, CRASH: 6}


class GateError(Exception):
    """A baseline or shard option that cannot be used; str() is one line, its control and bidi characters
    escaped (it may quote a file's text)."""

    def __init__(self, text: str):
        super().__init__(printable(text))


def item_key(case: str, dataset: int) -> str:
    return f"{case}[{dataset}]"


def is_worse(verdict: str, baseline: str | None) -> bool:
    """A regression: worse than the baseline's verdict, or failing where the baseline has none. A baseline
    verdict the gate does not rank (read_baseline refuses one) excuses nothing: judged as no verdict."""
    if verdict not in RANK:
        return False  # skipped / deselected: nothing to judge
    if baseline not in RANK:
        return RANK[verdict] >= RANK[FAIL]
    return RANK[verdict] > RANK[baseline]


def is_better(verdict: str, baseline: str | None) -> bool:
    return baseline in RANK and verdict in RANK and RANK[verdict] < RANK[baseline]


# ---- reading and judging against a baseline -----------------------------------------------------

def read_baseline(path: Path | str) -> dict:
    """{"backend": {...}, "suites": {...}, "items": {item key: {"verdict", "content"}}} from either format
    ("content" is None where the file has none). GateError (one line, naming the line of the file where
    it can) when the file is not a baseline: not JSON or nested too deep, another format, a field missing
    or of the wrong type, a verdict that is not one the gate ranks ("FAIL", "crashed")."""
    try:
        doc = read_document(path, (BASELINE_FORMAT, *OLD_FORMATS), "baseline file")
    except ValueError as exc:
        hint = " (create it with --update-baseline)" if "no such" in str(exc) else ""
        raise GateError(f"--baseline {exc}{hint}") from None
    try:
        _refuse_repeated_keys(path)
        return _baseline(doc)
    except _Malformed as exc:
        where = _line_of(path, exc.key)
        raise GateError(f"--baseline {path}: not a baseline file ({where}{exc})") from None


def _refuse_repeated_keys(path: Path | str) -> None:
    """A key written twice in one object is refused, naming both lines: JSON readers keep the last one, so an
    item's "pass" line left in place and a second line for the same key would turn a regression into a known
    failure (or the other way round) unseen. (Parsed again with a hook: the file was read and depth-checked.)"""
    def pairs(items: list) -> dict:
        seen = set()
        for key, _ in items:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(read_regular(path).decode("utf-8"), object_pairs_hook=pairs)
    except _Repeated as exc:
        lines = _lines_of(path, exc.key)
        where = f"lines {lines[0]} and {lines[1]}: " if len(lines) > 1 else _line_of(path, exc.key)
        raise _Malformed(f"{where}key {_q(exc.key)} is written twice (keep one entry an item)") from None


class _Repeated(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


class _Malformed(ValueError):
    """What is wrong with a baseline document; `key` is the JSON key nearest the fault (to find its line)."""

    def __init__(self, text: str, key: str | None = None):
        super().__init__(text)
        self.key = key


def _baseline(doc: dict) -> dict:
    backend = doc.get("backend")
    if not isinstance(backend, dict) or not isinstance(backend.get("name"), str):
        raise _Malformed('its "backend" is not an object with a "name"', "backend")
    if backend.get("settings") is not None and not isinstance(backend["settings"], dict):
        raise _Malformed('its backend "settings" is not an object', "settings")
    suites = doc.get("suites", {})
    if not isinstance(suites, dict) or not all(isinstance(v, str) for v in suites.values()):
        raise _Malformed('its "suites" is not an object of manifest hashes', "suites")
    machine = doc.get("machine")
    if machine is not None and not (isinstance(machine, dict) and all(isinstance(k, str) for k in machine)):
        raise _Malformed('its "machine" is not an object', "machine")
    return {"format": BASELINE_FORMAT, "backend": backend, "suites": suites, "machine": machine,
            "items": _items(doc)}


def _items(doc: dict) -> dict:
    """The items of a baseline document of either format; _Malformed naming the first bad one."""
    if doc["format"] == BASELINE_FORMAT:
        items = doc.get("items")
        if not isinstance(items, dict):
            raise _Malformed('no "items" object' if items is None else 'its "items" is not an object', "items")
        out = {}
        for key, e in items.items():
            if not isinstance(e, dict):
                raise _Malformed(f'item {_q(key)} is not an object {{"content": ..., "verdict": ...}}', key)
            if "verdict" not in e or "content" not in e:
                raise _Malformed(f'item {_q(key)} has no "{"verdict" if "verdict" not in e else "content"}"', key)
            if e["content"] is not None and not isinstance(e["content"], str):
                raise _Malformed(f"item {_q(key)}: its content is not a string or null", key)
            for field in ("family", "inputs"):
                if e.get(field) is not None and not isinstance(e[field], str):
                    raise _Malformed(f"item {_q(key)}: its {field} is not a string or null", key)
            out[key] = {"verdict": _verdict(key, e["verdict"]), "content": e["content"], "family": e.get("family"),
                        "inputs": e.get("inputs")}
        return out
    verdicts = doc.get("verdicts")
    if not isinstance(verdicts, dict):
        raise _Malformed('no "verdicts" object' if verdicts is None else 'its "verdicts" is not an object', "verdicts")
    return {k: {"verdict": _verdict(k, v), "content": None, "family": None, "inputs": None}
            for k, v in verdicts.items()}


def _verdict(key: str, verdict) -> str:
    if not _ITEM.fullmatch(key):
        raise _Malformed(f"item {_q(key)} is not named case[data set]", key)
    if not isinstance(verdict, str) or verdict not in RANK:
        raise _Malformed(f"item {_q(key)}: verdict {_q(verdict)} is not one of {', '.join(RANK)}", key)
    return verdict


_ITEM = re.compile(r".+\[[0-9]+\]", re.S)


def _q(value) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _line_of(path: Path | str, key: str | None) -> str:
    """ "line N: " of the first line of the file where `key` is written as a JSON key, "" where none is."""
    lines = _lines_of(path, key) if key is not None else []
    return f"line {lines[0]}: " if lines else ""


def _lines_of(path: Path | str, key: str) -> list[int]:
    """The numbers of the lines of the file where `key` is written as a JSON key (in either spelling)."""
    try:
        lines = read_regular(path).decode("utf-8").splitlines()
    except (OSError, ValueError):
        return []
    spellings = dict.fromkeys((json.dumps(key), json.dumps(key, ensure_ascii=False)))
    patterns = [re.compile(re.escape(s) + r"\s*:") for s in spellings]
    return [n for n, line in enumerate(lines, 1) if any(p.search(line) for p in patterns)]


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

def write_baseline(path: Path | str, records: list[dict], backend: dict, suites: dict[str, str] | None = None,
                   scope=None, extra: dict | None = None) -> dict:
    """Record every judged item's verdict, case content and family, and the suites run (their manifest hashes).
    Under a lock on the file, what the file holds now is read again and this run's items are merged into
    it: items outside this run's scope (other shards, families, -k) keep their entries, even when another
    shard wrote them a moment ago; items inside it that the run did not judge (vanished: their case left the
    suite, a skips file skipped them) are dropped. `scope`: a runners.gate_judge.Scope (None: drop nothing).
    `extra`: more top-level fields (the machine). GateError when the file is no baseline or one of another
    backend or settings.

    Returns what the update did: {"items": items the file holds, "dropped": items dropped, "previous": {item key:
    the verdict the file recorded for the same content of its case, or None, for each item this run judged; empty
    when the file is new}} (runners.gate_judge.update_changes makes the classes of them)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    previous: dict[str, str | None] = {}
    dropped = 0
    with _locked(path):
        items, known, current = {}, {}, None
        if path.exists():
            current = read_baseline(path)
            check_baseline_backend(current, backend, path)
            items, known = current["items"], current["suites"]
        judged = set()
        for r in records:
            if r.get("verdict") in RANK:
                key = item_key(r["case"], r["dataset"])
                judged.add(key)
                if current is not None:
                    previous[key] = baseline_verdict(current, key, r.get("content"))
                items[key] = {"verdict": r["verdict"], "content": r.get("content"), "family": r.get("family"),
                              "inputs": r.get("inputs")}  # --inputs auto: the mode that judged it, where not fed
        if scope is not None:
            collected = {r["case"] for r in records}
            gone = [k for k, e in items.items() if k not in judged and scope.covers(k, e, collected)]
            for key in gone:
                del items[key]
            dropped = len(gone)
        write_atomically(path, baseline_text(jsonable(backend), items, {**known, **(suites or {})}, extra))
    return {"items": len(items), "dropped": dropped, "previous": previous}


def other_suites(baseline: dict, suites: dict[str, str]) -> list[str]:
    """Lines naming the suites of this run whose manifest differs from the one the baseline recorded for the
    same directory: their changed cases are judged as new (a baseline without "suites" names none)."""
    recorded = baseline.get("suites") or {}
    return [f"{d}: baseline recorded on manifest {recorded[d][:12]}, this run has {h[:12]}"
            for d, h in sorted(suites.items()) if d in recorded and recorded[d] != h]


def baseline_text(backend: dict, items: dict[str, dict], suites: dict[str, str] | None = None,
                  extra: dict | None = None) -> str:
    """The baseline file: sorted keys, one item a line (an entry's null family and inputs left out)."""
    text = json.dumps({**jsonable(extra or {}), "backend": backend, "format": BASELINE_FORMAT, "items": "@ITEMS@",
                       "suites": dict(sorted((suites or {}).items()))}, indent=1, sort_keys=True)
    def entry(e: dict) -> dict:
        return {k: v for k, v in e.items() if k not in ("family", "inputs") or v is not None}

    lines = ",\n  ".join(f"{json.dumps(k)}: {json.dumps(entry(e), sort_keys=True)}" for k, e in sorted(items.items()))
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
