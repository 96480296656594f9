"""Verdict records and the JSON results file.

One `Result` per data set of a case run on one backend (runners/execute.py makes them). A results
file holds a header (format, backend, settings, tier, counts per verdict) and one record per run
item, sorted by case and data set so two runs of the same suite compare line by line.

Fields added since the first format are optional when read (older files still load): the record's
`content` (the case's content hash), `reading` (what a judged item's expectation reads where no sentence
states it), `opset` (case.json's), the header's `suites` ({suite directory: suite_hash of it}, the
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
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from generator.jsontext import MAX_DEPTH, depth, gunzipped, loads, prune_deep

RESULTS_FORMAT = "opconform-results/1"

# Verdicts of docs/design.md ("Verdicts"), plus what a run item can end as without a backend verdict.
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
    opset: int | None = None  # case.json "opset": the model's default-domain opset (report matrix rows); None (absent) if unsaid
    # node / graph data sets: the tiers ("strict", "tolerant") whose comparison passes; None for other kinds
    tiers_met: list[str] | None = None
    # fail verdicts of node / graph data sets: the fault models that reproduce the outputs ([] = none); errors
    # and refusals of the backend: the fault models that refuse the same model (only where some does);
    # None (absent from the record) where nothing was diagnosed (runners/diagnose.py)
    diagnosis: list[str] | None = None
    # node / graph data sets: case.json "reading", where what the case expects rests on a reading of the texts
    # rather than a sentence of them (docs/readings.md); None (absent from the record) where it rests on sentences
    reading: str | None = None
    # the case's content hash (generator.serialize: the sha256 of its case.json, which lists the sha256 of
    # every file): ties a verdict to what was run; None for a case without case.json or one not read
    content: str | None = None
    # what the backend wrote to stdout / stderr during the data set (its worker's fds 1 and 2): the last
    # runners.worker.OUTPUT_TAIL bytes, as text; None (absent from the record) where it wrote nothing
    output: str | None = None
    # out-of-memory verdicts: the bytes the worker held (VmData) before the data set started; else None (absent)
    worker_memory: int | None = None
    # where the node(s) under test ran, as the backend reports after prepare (a prepared model's `placement`): e.g.
    # {"requested": provider, "nodes": [{"node", "op", "provider" / "device", "precision"}]}; None (absent) if unsaid
    placement: dict | None = None
    # a refusal inside a claim (--claims, runners/claims.py), now a fail: "FILE line N: the claim"; None (absent)
    claim: str | None = None
    inputs: str | None = None  # --inputs auto: "initializers" where the fed weights were refused; None (absent)

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def to_record(self) -> dict:
        # field by field (what dataclasses.asdict would give, without its deep copy: jsonable makes new
        # containers anyway), one record per item of a run
        record = {f.name: jsonable(getattr(self, f.name)) for f in _FIELDS}
        for key in ("opset", "diagnosis", "reading", "output", "worker_memory", "placement", "claim", "inputs"):
            if record.get(key) is None:
                del record[key]
        return record


_FIELDS = dataclasses.fields(Result)


def jsonable(x):
    """x as plain JSON values (see the module docstring)."""
    t = type(x)
    if t is str or t is int or t is bool or x is None:  # most fields of a record: as they are
        return x
    if t is float:
        return x if math.isfinite(x) else float_value(x)
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
    write_atomically(path, results_text(records, header))
    return Path(path)


_RECORDS_HERE = "\x00records\x00"  # stands for the records in the header's indented text


def results_text(records: list[dict], header: dict) -> str:
    """The results file's text: the header indented, each record on a line of its own (whole records for diff
    and grep; and json's C encoder, which indented output never gets: seconds saved on a whole suite). The records
    replace the top-level key at its one-space indent after a line break, which no string or nested key can be."""
    doc = results_document(records, header)
    records, doc["records"] = doc["records"], _RECORDS_HERE
    text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False)
    encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False).encode
    listed = "[\n" + ",\n".join(f"  {encode(r)}" for r in records) + "\n ]" if records else "[]"
    here = f'\n "records": {json.dumps(_RECORDS_HERE)}'
    return text.replace(here, f'\n "records": {listed}', 1) + "\n"


def write_atomically(path: Path | str, text: str) -> None:
    """Write `text` to a new file in the directory of `path` and rename it over `path`: a reader sees the old
    file or the new one, never half of one, and a symbolic link at `path` is replaced, never followed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; a results file or report is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_document(path: Path | str, fmt: str | tuple[str, ...], what: str) -> dict:
    """A JSON file whose "format" is `fmt` (or one of them). Raises ValueError with one line naming the
    file and `what`: also for a file that is not a regular one (a FIFO is never waited on) and for JSON
    nested deeper than generator.jsontext takes."""
    doc, _ = _read_json(path, fmt, what)
    return doc


def _read_json(path: Path | str, fmt: str | tuple[str, ...], what: str, prune: bool = False) -> tuple[dict, bool]:
    """read_document's work. prune=True: subtrees nested too deep are replaced by TOO_DEEP (a string) instead
    of refusing the file, and the second value says whether any was."""
    path = Path(path)
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such {what}") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not a {what} ({exc})") from None
    except OSError as exc:
        raise ValueError(f"{path}: not a {what} ({exc.strerror or exc})") from None
    pruned = False
    try:
        data = gunzipped(data)
        text = data.decode("utf-8")
        if prune and depth(text) > MAX_DEPTH:
            text, pruned = prune_deep(text, MAX_DEPTH, TOO_DEEP), True
        doc = loads(text)
    except ValueError as exc:  # UnicodeDecodeError and json.JSONDecodeError are ValueErrors
        raise ValueError(f"{path}: not a {what} ({_one_line(exc)})") from None
    formats = (fmt,) if isinstance(fmt, str) else fmt
    if not isinstance(doc, dict) or doc.get("format") not in formats:
        raise ValueError(f"{path}: not a {what} (format is not {' or '.join(formats)})")
    return doc, pruned


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


# A subtree nested too deep, as prune_deep leaves it: a string no honest results file holds (a NUL in it).
TOO_DEEP = "\x00opconform: nested too deep\x00"


def holds(x, value: str) -> bool:
    """Whether `value` is a string, or a key, anywhere in x (a parsed JSON value of bounded depth)."""
    if isinstance(x, str):
        return x == value
    if isinstance(x, dict):
        return any(k == value or holds(v, value) for k, v in x.items())
    if isinstance(x, list):
        return any(holds(v, value) for v in x)
    return False


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of a regular file (the first `limit` of them), following symbolic links. ValueError (one
    line) for a directory, a FIFO, a device or a socket, which are never opened in a way that blocks;
    FileNotFoundError / OSError as open() raises them."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        return _read_fd(fd, path, limit)
    finally:
        os.close(fd)


def _read_fd(fd: int, path, limit: int | None) -> bytes:
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError("is a directory" if stat.S_ISDIR(mode) else "is not a regular file")
    chunks, n = [], 0
    while limit is None or n < limit:
        chunk = os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - n))
        if not chunk:
            break
        chunks.append(chunk)
        n += len(chunk)
    return b"".join(chunks)


def existing_head(path: Path | str, limit: int) -> bytes | None:
    """The first `limit` bytes of the file an output would replace, None where there is none. ValueError
    (one line) for a path an output must not be written to: a symbolic link (its target would be the one
    written, or it would be replaced), a directory, a FIFO, a device, a socket. Nothing here blocks."""
    found = existing_file(path, limit, 0)
    return None if found is None else found[0]


def existing_file(path: Path | str, head: int, tail: int) -> tuple[bytes, bytes] | None:
    """existing_head's work: (the first `head` bytes, the last `tail` bytes) of the file, None where there
    is none."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be examined ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError(f"{path}: is a symbolic link (give the path of the file itself)")
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path}: is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: is not a regular file (a FIFO, device or socket)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None  # removed since
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read to check what it is ({exc.strerror or exc})") from None
    try:
        first = _read_fd(fd, path, head)  # fstat first: a FIFO put there since is refused, not read
        last = b""
        if tail:
            os.lseek(fd, max(0, os.fstat(fd).st_size - tail), os.SEEK_SET)
            last = _read_fd(fd, path, tail)
        return first, last
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read to check what it is ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_results(path: Path | str) -> dict:
    """A results file. Raises ValueError (one line) when it is not one."""
    return read_document(path, RESULTS_FORMAT, "results file")


def load_results(path: Path | str) -> tuple[dict, list[dict], list[str]]:
    """A results file for a reader that must not trust it (opconform report): (its document, its records
    that record_problem passes, one line per record skipped: "record N (case[dataset]): why").
    ValueError (one line) when the file as a whole is not a results file: not JSON, another format, no
    list of records, or a header nested too deep. A record nested too deep is skipped like any other bad one."""
    doc, pruned = _read_json(path, RESULTS_FORMAT, "results file", prune=True)
    records = doc.get("records")
    if not isinstance(records, list):
        raise ValueError(f"{path}: not a results file (its records are not a list)")
    if pruned and holds({k: v for k, v in doc.items() if k != "records"}, TOO_DEEP):
        raise ValueError(f"{path}: not a results file (its header is nested more than {MAX_DEPTH} levels deep)")
    good, skipped = [], []
    for n, r in enumerate(records):
        why = (f"nested more than {MAX_DEPTH} levels deep" if pruned and holds(r, TOO_DEEP)
               else record_problem(r))
        if why is None:
            good.append(r)
        else:
            skipped.append(f"record {n}{_record_name(r)}: {why}")
    return doc, good, skipped


def _record_name(r) -> str:
    if isinstance(r, dict) and isinstance(r.get("case"), str) and isinstance(r.get("dataset"), int):
        return f" ({r['case']}[{r['dataset']}])"
    return ""


def _str_list(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _outputs(v) -> bool:
    """Probe outputs: a list of {"bits": [scalars], "values": [...]} (either may be absent or null)."""
    scalar = (str, int, float)
    return isinstance(v, list) and all(
        isinstance(o, dict) and (o.get("bits") is None or (isinstance(o["bits"], list)
                                                             and all(isinstance(b, scalar) for b in o["bits"])))
        and (o.get("values") is None or isinstance(o["values"], list)) for o in v)


# Fields a reader of records uses beside case, dataset and verdict: the test their value must pass, and
# what that test asks for. A field absent or null is fine (older files, kinds that have none).
_STRING = (lambda v: isinstance(v, str), "a string")
OPTIONAL_FIELDS = {
    **{key: _STRING for key in ("kind", "message", "family", "op", "reading", "error", "content", "outcome", "nodeid",
                                "claim", "inputs")},
    "params": (lambda v: isinstance(v, dict), "an object"),
    "opset": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "tiers_met": (_str_list, "a list of strings"),
    "diagnosis": (_str_list, "a list of strings"),
    "outputs": (_outputs, 'a list of objects whose "bits" are numbers or strings'),
    "placement": (lambda v: isinstance(v, dict), "an object"),
}


def record_problem(r) -> str | None:
    """Why a results record cannot be read as one (one line), None when every field a reader uses has the
    type it needs: case a non-empty string, dataset a non-negative integer, verdict one of VERDICTS, the
    OPTIONAL_FIELDS absent, null or as described."""
    if not isinstance(r, dict):
        return f"not an object ({type(r).__name__})"
    case, dataset, verdict = r.get("case"), r.get("dataset"), r.get("verdict")
    if not isinstance(case, str) or not case:
        return "no case name" if case is None else "its case is not a non-empty string"
    if isinstance(dataset, bool) or not isinstance(dataset, int) or dataset < 0:
        return "no data set" if dataset is None else "its dataset is not a non-negative integer"
    if verdict is None:
        return "no verdict"
    if not isinstance(verdict, str) or verdict not in VERDICTS:
        return f"verdict {_shown(verdict)} is not one of {', '.join(VERDICTS)}"
    for name, value in r.items():  # the record's own fields: most records hold few of the optional ones
        spec = OPTIONAL_FIELDS.get(name)
        if spec is not None and value is not None and not spec[0](value):
            return f"its {name} is not {spec[1]}"
    return None


def _shown(v) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def suite_hash(suite_dir: Path | str) -> str | None:
    """The sha256 of a suite's manifest.json (what the results header's `suites` records), None where
    there is none (or it is no regular file): two runs with the same hash ran the same list of cases."""
    try:
        return hashlib.sha256(read_regular(Path(suite_dir) / "manifest.json")).hexdigest()
    except (OSError, ValueError):
        return None


HEAD = 1 << 20  # bytes read to find the format of a large file: ours write it before the records
_FORMAT = re.compile(r'"format"\s*:\s*"(opconform-[a-z]+/[0-9]+)"')


def document_format(path: Path | str) -> str | None:
    """The "format" of an opconform JSON document (results, baseline, suite manifest), None for any
    other file (and for anything that is not a regular file). Reads the whole file only when it is small."""
    try:
        head = read_regular(path, HEAD + 1)
    except (OSError, ValueError):
        return None
    return head_format(head)


def head_format(head: bytes) -> str | None:
    """document_format of a file's first HEAD + 1 bytes."""
    if len(head) <= HEAD:
        try:
            doc = loads(head)
        except ValueError:
            return None
        fmt = doc.get("format") if isinstance(doc, dict) else None
        return fmt if isinstance(fmt, str) and fmt.startswith("opconform-") else None
    m = _FORMAT.search(head.decode("utf-8", errors="replace"))
    return m.group(1) if m else None


def check_results_target(path: Path | str) -> None:
    """Refuse to write a results file over a file that is not one (a baseline, a suite manifest, a
    user's file), a symbolic link, or anything but a regular file: ValueError, one line. An empty file
    (mktemp's) may be written over."""
    head = existing_head(path, HEAD + 1)
    if not head:
        return
    fmt = head_format(head)
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
