"""Results files -> a conformance report (HTML or Markdown) through the jinja2 templates in templates/.

    opconform report RESULTS.json [RESULTS.json ...] [-o report.html|report.md|-] [--format html|md]
                     [--suite DIR] [--baseline B.baseline.json ...]

One results file per backend (`pytest SUITE --backend B --report B.json`); several side by side make
a scoreboard. The page shows, first, against a gate's baseline where one is given (report_baseline.py): the
new failures (what the gate fails on), the known and the fixed ones; then per backend: name, version,
settings, tier and the selection the run made; counts per family and verdict; the tiers met per family; the
type grids (Cast, CastLike, ConvertPromoteTypes, QuantizeLinear), each cell with its counts as text and
colored by its worst verdict; the failures per fault model (runners/diagnose.py); the failing items against
a sentence of the texts apart from those against a reading; the probe cases as a divergence matrix (folded
away where fewer than two backends have a probe result); for columns of one runtime under different settings (cpu
and gpu), the items whose results differ between them (report_pairs.py); and every failing item, grouped by family, fault
model and configuration with counts (report_groups.py), each with its node, opset, spec clause, reading,
inputs, node id and reproducer command (report_items.py). The HTML is one self-contained file: inline CSS,
no scripts, no network; its groups are collapsed <details>. The Markdown escapes every value it shows (a
message can hold anything, runners/markdown.py): no HTML, no link, image or autolink from data; both show
control and bidi characters escaped (runners/escape.py).

Inputs (report_inputs.py): shards of one run merge into one column; a results file's malformed records are
left out one by one and named in the notes (`opconform report` then exits 1); the notes also name missing
shards, the selected cases a column has no result for, and inputs from different suites. `-o` writes only
where report_output.check_output allows.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import jinja2
from markupsafe import Markup

from runners.diagnose import fault_table, fault_whats
from runners.escape import printable
from runners.markdown import Markdown, md_code, md_text  # noqa: F401 - md_text: tests/test_report.py imports it here
from runners.report_baseline import against
from runners.report_groups import failure_view
from runners.report_inputs import (ReportError, Run, load, problems, selection_text,  # noqa: F401 - see below
                                   suites_here)
from runners.report_items import Cases
from runners.report_matrix import matrix_view
from runners.report_output import MARK
from runners.report_pairs import pairs
from runners.report_support import cell_text as support_cell
from runners.report_support import support
from runners.report_tables import (LETTERS, ORDER, SENTENCE, UNRECORDED, bases_markdown,  # noqa: F401
                                   failure_bases, family_counts, grids, placements, probe_matrix, tiers_met)

# ReportError, load, problems (tests/test_report.py, tests/test_hostile_reports.py, scripts/unmatched.py), ORDER
# (runners/pytest_plugin.py), bases_markdown and failure_bases (scripts/discrepancies.py) stay importable here.

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
MD_NAMES = 20  # failing items the Markdown names per configuration (the HTML shows every one): a CI step summary
# holds at most 1 MiB
MD_CONFIGS = 12  # configurations the Markdown lists per fault model (type pairs run to hundreds on one backend)


VIEWS = ("full", "matrix")  # matrix: the columns, the conformance matrix and the release history only


def _columns(runs: list[Run]) -> list[dict]:
    return [{
        "run": run,
        "counts": dict(sorted(Counter(r["verdict"] for r in run.records).items(), key=lambda kv: ORDER.index(kv[0])
                              if kv[0] in ORDER else len(ORDER))),
        "shards": f"{len(run.shards)} of {run.shard_total}" if run.shard_total else "",
        "selection": selection_text(run.selection),
        "auto": sum(1 for r in run.records if r.get("inputs")),  # --inputs auto: judged with weights constant
        "placements": placements(run),
    } for run in runs]


def build(runs: list[Run], notes: list[str] = (), suite: Path | str | None = None,
          baselines: list[Path | str] = (), view: str = "full", by: str | None = None,
          title: str | None = None) -> dict:
    """The view the templates render. ValueError (one line) for a --baseline that cannot be used."""
    common = {"notes": list(notes), "order": ORDER, "view": view, "matrix": matrix_view(runs, by, suite),
              "title": title or "opconform conformance report"}
    if view == "matrix":
        return {**common, "runs": _columns(runs), "baseline": []}
    whats = fault_whats({n for run in runs for r in run.records for n in r.get("diagnosis") or ()})
    cases = Cases()
    suites = {id(run): suites_here(run, suite) for run in runs}
    gate = against(runs, list(baselines))
    for entry in gate:
        run = entry["run"]
        entry["view"] = failure_view(run, whats, suites[id(run)], cases, entry["new"])
        entry["label"] = run.label
    return {
        **common,
        "runs": [{**column, "families": family_counts(column["run"]), "tiers": tiers_met(column["run"]),
                  "grids": grids(column["run"]),
                  "failures": failure_view(column["run"], whats, suites[id(column["run"])], cases)}
                 for column in _columns(runs)],
        "baseline": gate,
        "faults": fault_table([(run.label, run.records) for run in runs]),
        "bases": failure_bases([(run.label, run.records) for run in runs]),
        "sentence": SENTENCE,
        "unrecorded": UNRECORDED,
        "families": sorted({f for run in runs for f in family_counts(run)}),
        "probes": probe_matrix(runs),
        "pairs": pairs(runs),
        "md_names": MD_NAMES,
        "md_configs": MD_CONFIGS,
        "letters": LETTERS,
        "support": support(runs),
        "support_cell": support_cell,
    }


def render(runs: list[Run], fmt: str = "html", notes: list[str] = (), suite: Path | str | None = None,
           baselines: list[Path | str] = (), view: str = "full", by: str | None = None, title: str | None = None) -> str:
    """The report as HTML (autoescaped) or Markdown (every value escaped by md_text, code spans by md_code);
    in both, control and bidi characters show escaped (runners/escape.py), and the text carries MARK."""
    return _template(fmt == "md").render(**build(runs, notes, suite, baselines, view, by, title),
                                         mark=Markup(MARK))


@functools.lru_cache(maxsize=2)
def _template(md: bool) -> jinja2.Template:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=not md,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, finalize=_md_finalize if md else _html_finalize)
    if md:
        env.filters["code"] = md_code
    return env.get_template("report.md.j2" if md else "report.html.j2")


def _html_finalize(value):
    if isinstance(value, Markup):
        return Markup(_printable(str(value)))  # escapes add backslashes only: still safe HTML
    return _printable("" if value is None else str(value))


def _printable(text: str) -> str:
    """printable(text, newlines=True), at once for the common multi-line message that has nothing to escape
    (str.isprintable is false for every character printable escapes)."""
    if "\x7f" not in text and text.replace("\n", "").isprintable():
        return text
    return printable(text, newlines=True)


def _md_finalize(value):
    if isinstance(value, (Markdown, Markup)):
        return value
    return "" if value is None else md_text(value)
