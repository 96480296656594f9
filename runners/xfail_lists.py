"""`opconform xfails RESULTS.json --format F`: a results file's failing items as the expected-failure lists vendors
keep (docs/exports.md says what each form loses).

  opconform            --xfails-file of `pytest SUITE --backend B` and `opconform run`: one item a line ("::case[i]",
                       a substring of its node id), its verdict and first message line as a comment
  pytest               `--deselect=NODE_ID` lines, for `pytest @FILE` (pytest 8.2 reads arguments from a file): the
                       node ids as the run recorded them, so pytest must run from the same directory
  onnxruntime-filters  the JSONC shape of onnxruntime's onnx_backend_test_series_filters.jsonc: "current_failing_tests"
                       holds one regex per failing case, matching the test names ONNX's Runner gives the cases of
                       `opconform export --format onnx-backend-test` (test_<case>_cpu / _cuda): a case, not a data set

Failing: fail, error, crash and timeout; with --unsupported also unsupported (the backend lacked the op or type).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

from runners.escape import printable

FORMATS = ("opconform", "pytest", "onnxruntime-filters")
FAILING = ("fail", "error", "crash", "timeout")


def failing(records: list[dict], unsupported: bool = False) -> list[dict]:
    """The records to list, in (case, data set) order."""
    verdicts = FAILING + (("unsupported",) if unsupported else ())
    return sorted((r for r in records if r.get("verdict") in verdicts),
                  key=lambda r: (str(r.get("case")), int(r.get("dataset") or 0)))


def _why(r: dict) -> str:
    first = (r.get("message") or "").splitlines()[0] if r.get("message") else ""
    first = first.split(": ", 1)[1] if ": " in first else first
    return printable(f"{r['verdict']}: {first}"[:160])


def opconform_file(records: list[dict], header: str) -> str:
    lines = [f"# {header}"]
    for r in records:
        lines.append(f"::{r['case']}[{r.get('dataset') or 0}]  # {_why(r)}")  # "::": no other case's suffix
    return "\n".join(lines) + "\n"


def pytest_file(records: list[dict], header: str) -> str:
    # pytest's argument files take no comments: the header goes to the caller's message
    del header
    return "".join(f"--deselect={r['nodeid']}\n" for r in records if r.get("nodeid"))


def onnxruntime_filters(records: list[dict], header: str) -> str:
    cases = defaultdict(list)
    for r in records:
        cases[str(r["case"])].append(r)
    lines = ["// " + header, "{", '  "current_failing_tests": [']
    entries = []
    for case, rs in sorted(cases.items()):
        verdicts = ", ".join(sorted({r["verdict"] for r in rs}))
        entries.append(f'    {json.dumps("^" + re.escape(case) + "_(cpu|cuda)$")}  // {len(rs)} data set(s): '
                       f"{verdicts}")
    for i, e in enumerate(entries):
        text, comment = e.split("  // ", 1)
        lines.append(f"{text}{',' if i < len(entries) - 1 else ''}  // {comment}")
    lines += ["  ],", '  "tests_with_pre_opset7_dependencies": [],', '  "unsupported_usages_filters": [],',
              '  "failing_permanently": [],', '  "test_with_types_disabled_due_to_binary_size_concerns": []', "}"]
    return "\n".join(lines) + "\n"


WRITERS = {"opconform": opconform_file, "pytest": pytest_file, "onnxruntime-filters": onnxruntime_filters}


def render(doc: dict, records: list[dict], fmt: str, unsupported: bool = False) -> tuple[str, int]:
    """The list's text and how many items it names."""
    b = doc.get("backend") if isinstance(doc.get("backend"), dict) else {}
    chosen = failing(records, unsupported)
    header = (f"expected failures of {b.get('name')} {b.get('version')} (opconform results of {doc.get('created')}): "
              f"{len(chosen)} item(s)")
    return WRITERS[fmt](chosen, header), len(chosen)
