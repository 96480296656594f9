"""Verdict records and the JSON results file.

One `Result` per data set of a case run on one backend (runners/execute.py makes them). A results
file holds a header (format, backend, settings, tier, counts per verdict) and one record per run
item, sorted by case and data set so two runs of the same suite compare line by line.

Fields added since the first format are optional when read (older files still load): the record's
`content` (the case's content hash), the header's `suites` ({suite directory: suite_hash of it}, the
suites the run collected) and `shard` ("I/N" for a `--shard` run, else null).

Every value in a record is plain JSON: non-finite floats are written as the strings "nan",
"inf", "-inf" (strict JSON has no NaN), numpy scalars and arrays become Python numbers and lists.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RESULTS_FORMAT = "opconform-results/1"

# Verdicts of DESIGN.md ("Verdicts"), plus what a run item can end as without a backend verdict.
PASS = "pass"
FAIL = "fail"
ERROR = "error"
UNSUPPORTED = "unsupported"
CRASH = "crash"
TIMEOUT = "timeout"
PROBE = "probe"
INVALID_CASE = "invalid-case"  # the case on disk cannot be read (missing / corrupt file, hash mismatch)
SKIPPED = "skipped"  # not run (skips file, -k does not record deselected items)

VERDICTS = (PASS, FAIL, ERROR, UNSUPPORTED, CRASH, TIMEOUT, PROBE, INVALID_CASE, SKIPPED)
FAILING = frozenset({FAIL, ERROR, CRASH, TIMEOUT, INVALID_CASE})


@dataclass
class Result:
    """The verdict of one data set of one case on one backend."""

    case: str
    dataset: int
    kind: str
    verdict: str
    message: str
    backend: str
    backend_version: str
    tier: str
    duration: float = 0.0  # seconds: prepare (when this data set paid for it) + run + compare
    settings: dict = field(default_factory=dict)
    n_mismatch: int = 0
    n_total: int = 0
    mismatches: list[dict] = field(default_factory=list)  # the first mismatching elements
    outputs: list[dict] | None = None  # probe: what the backend returned, per output
    error: str | None = None  # the backend's exception, "Type: text", where it raised
    # what the case checks, from case.json (reports group and grid by these)
    op: str | None = None
    family: str | None = None
    params: dict | None = None
    # node / graph data sets: the tiers ("strict", "tolerant") whose comparison passes; None for other kinds
    tiers_met: list[str] | None = None
    # fail verdicts of node / graph data sets: the fault models that reproduce the outputs ([] = none);
    # None (absent from the record) where nothing was diagnosed (runners/diagnose.py)
    diagnosis: list[str] | None = None
    # the case's content hash (generator.serialize: the sha256 of its case.json, which lists the sha256 of
    # every file): ties a verdict to what was run; None for a case without case.json or one not read
    content: str | None = None

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def to_record(self) -> dict:
        record = jsonable(dataclasses.asdict(self))
        if record.get("diagnosis") is None:
            del record["diagnosis"]
        return record


def jsonable(x):
    """x as plain JSON values (see the module docstring)."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return jsonable(dataclasses.asdict(x))
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "V":  # ml_dtypes: float8 / bfloat16 / float4 / int4 ...
            x = x.astype(np.int64 if _ml_is_int(x.dtype) else np.float64)
        return jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float_value(float(x))
    if isinstance(x, np.generic) and x.dtype.kind == "V":
        return int(x) if _ml_is_int(x.dtype) else float_value(float(x))
    if isinstance(x, bytes):
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            return x.hex()
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, Path):
        return str(x)
    return str(x)


def _ml_is_int(dt: np.dtype) -> bool:
    """ml_dtypes types (numpy kind "V") that hold integers: int2 / int4 / uint2 / uint4."""
    return dt.name.startswith(("int", "uint"))


def float_value(v: float):
    """A float as JSON: the number, or "nan" / "-nan" / "inf" / "-inf"."""
    if math.isnan(v):
        return "-nan" if math.copysign(1.0, v) < 0 else "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def counts(records: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in records:
        out[r["verdict"]] = out.get(r["verdict"], 0) + 1
    return dict(sorted(out.items()))


def sort_records(records: list[dict]) -> list[dict]:
    return sorted(records, key=lambda r: (r.get("case", ""), r.get("dataset", 0), r.get("nodeid", "")))


def results_document(records: list[dict], header: dict) -> dict:
    """The results file content: header fields, counts per verdict, records sorted."""
    records = sort_records(records)
    doc = {"format": RESULTS_FORMAT}
    doc.update(jsonable(header))
    doc["counts"] = counts(records)
    doc["records"] = records
    return doc


def write_results(path: Path | str, records: list[dict], header: dict) -> Path:
    """Write the results file atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(results_document(records, header), indent=1, sort_keys=True, ensure_ascii=False,
                      allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; a results file is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_document(path: Path | str, fmt: str | tuple[str, ...], what: str) -> dict:
    """A JSON file whose "format" is `fmt` (or one of them). Raises ValueError with one line naming the
    file and `what`."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a {what} ({exc})") from None
    formats = (fmt,) if isinstance(fmt, str) else fmt
    if not isinstance(doc, dict) or doc.get("format") not in formats:
        raise ValueError(f"{path}: not a {what} (format is not {' or '.join(formats)})")
    return doc


def read_results(path: Path | str) -> dict:
    """A results file. Raises ValueError (one line) when it is not one."""
    return read_document(path, RESULTS_FORMAT, "results file")


def suite_hash(suite_dir: Path | str) -> str | None:
    """The sha256 of a suite's manifest.json (what the results header's `suites` records), None where
    there is none: two runs with the same hash ran the same list of cases."""
    try:
        return hashlib.sha256((Path(suite_dir) / "manifest.json").read_bytes()).hexdigest()
    except OSError:
        return None


HEAD = 1 << 20  # bytes read to find the format of a large file: ours write it before the records
_FORMAT = re.compile(r'"format"\s*:\s*"(opconform-[a-z]+/[0-9]+)"')


def document_format(path: Path | str) -> str | None:
    """The "format" of an opconform JSON document (results, baseline, suite manifest), None for any
    other file. Reads the whole file only when it is small."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD + 1)
    except OSError:
        return None
    if len(head) <= HEAD:
        try:
            doc = json.loads(head)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
        fmt = doc.get("format") if isinstance(doc, dict) else None
        return fmt if isinstance(fmt, str) and fmt.startswith("opconform-") else None
    m = _FORMAT.search(head.decode("utf-8", errors="replace"))
    return m.group(1) if m else None


def check_results_target(path: Path | str) -> None:
    """Refuse to write a results file over a file that is not one (a baseline, a suite manifest, a
    user's file): ValueError, one line. An empty file (mktemp's) may be written over."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a directory")
    if not path.exists() or path.stat().st_size == 0:
        return
    fmt = document_format(path)
    if fmt == RESULTS_FORMAT:
        return
    what = f"an opconform {fmt.split('/')[0].removeprefix('opconform-')} file" if fmt else "not a results file"
    raise ValueError(f"{path}: exists and is {what}; it would be overwritten (choose another path)")


def differing_settings(settings: list[dict]) -> list[str]:
    """The keys whose values are not the same in every settings dict (a missing key differs too)."""
    keys = sorted({k for s in settings for k in s})
    return [k for k in keys
            if len({json.dumps(jsonable(s[k]), sort_keys=True) if k in s else None for s in settings}) > 1]


def settings_text(settings: dict, keys: list[str] | None = None) -> str:
    """"k=v, k2=v2" (of `keys`, default all; a key not set reads "k unset")."""
    def value(v):
        return v if isinstance(v, str) else json.dumps(jsonable(v), sort_keys=True)

    return ", ".join(f"{k}={value(settings[k])}" if k in settings else f"{k} unset"
                     for k in (sorted(settings) if keys is None else keys))
