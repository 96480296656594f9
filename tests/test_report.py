"""opconform report: results files of several backends -> one HTML / Markdown report."""

from __future__ import annotations

import json
import re

import pytest

from runners.gate import shard_of
from runners.report import MARK, ReportError, build, load, md_code, md_text, problems, render
from runners.results import suite_hash, write_results

from cli_in_process import opconform


def rec(case, verdict, family="cast", params=None, kind="node", tiers=None, message="", outputs=None, error=None,
        dataset=0):
    return {"case": case, "dataset": dataset, "kind": kind, "verdict": verdict, "family": family, "op": "Cast",
            "params": params, "message": message or f"{case}[{dataset}]: {verdict}", "tiers_met": tiers,
            "outputs": outputs, "error": error, "mismatches": [], "outcome": "passed"}


def cast(src, to, verdict, what="edge", tiers=("strict", "tolerant"), message=""):
    return rec(f"test_cast_{src}_to_{to}_{what}", verdict, params={"from": src, "to": to},
               tiers=list(tiers) if verdict == "pass" else (["tolerant"] if verdict == "fail" and tiers == ("tolerant",)
                                                            else []), message=message)


def probe(case, bits, error=None):
    out = None if error else [{"name": "y", "type": "int8", "shape": [len(bits)], "bits": bits, "values": bits}]
    return rec(case, "probe", kind="probe", outputs=out, error=error)


@pytest.fixture
def results(tmp_path):
    a = [cast("float", "float16", "pass"), cast("float", "int8", "fail", message="MISMATCH-TEXT index [3]"),
         cast("double", "float16", "pass"), cast("float", "float4e2m1", "unsupported"),
         probe("test_cast_float_to_int8_probe", ["0x01", "0x02", "0x03"]),
         probe("test_cast_string_to_bool_probe", ["0x00"])]
    b = [cast("float", "float16", "pass"), cast("float", "int8", "pass"), cast("double", "float16", "crash"),
         cast("float", "float4e2m1", "pass"),
         probe("test_cast_float_to_int8_probe", ["0x01", "0x7f", "0x80"]),
         probe("test_cast_string_to_bool_probe", [], error="RuntimeError: no")]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    write_results(pa, a, {"backend": {"name": "alpha", "version": "1.0", "settings": {"precision": "f32"}}, "tier": "strict"})
    write_results(pb, b, {"backend": {"name": "beta", "version": "2.0", "settings": {}}, "tier": "strict"})
    return pa, pb


def test_view_model(results):
    view = build(load(list(results)))
    alpha, beta = view["runs"]
    assert alpha["run"].label == "alpha 1.0" and beta["run"].label == "beta 2.0"
    assert alpha["counts"] == {"pass": 2, "probe": 2, "unsupported": 1, "fail": 1}
    assert alpha["tiers"] == {"cast": []} and beta["tiers"] == {"cast": []}
    [grid] = alpha["grids"]
    cells = {(row, c): cell["verdict"] for row, line in grid["rows"] for c, cell in zip(grid["cols"], line)}
    assert cells[("float", "float16")] == "pass" and cells[("float", "int8")] == "fail"
    assert cells[("float", "float4e2m1")] == "unsupported" and cells[("double", "int8")] == ""
    assert grid["cols"] == ["int8", "float16", "float4e2m1"]  # the dtype registry's order
    probes = {r["case"]: r for r in view["probes"]["rows"]}
    assert probes["test_cast_float_to_int8_probe"]["differing"] == 2 and probes["test_cast_float_to_int8_probe"]["diverge"]
    assert probes["test_cast_string_to_bool_probe"]["diverge"]  # one returned, one raised
    assert view["probes"]["diverging"] == 2


def test_tiers_met_per_family(tmp_path):
    recs = [cast("float", "float16", "pass"), cast("float", "int8", "fail", tiers=("tolerant",)),
            rec("test_dql_x", "pass", family="dynamic_quantize_linear", tiers=["strict", "tolerant"])]
    p = tmp_path / "r.json"
    write_results(p, recs, {"backend": {"name": "x", "version": "1"}, "tier": "strict"})
    [run] = build(load([p]))["runs"]
    assert run["tiers"] == {"cast": ["tolerant"], "dynamic_quantize_linear": ["strict", "tolerant"]}


def test_html_is_self_contained_and_shows_everything(results):
    html = render(load(list(results)), "html")
    assert "<script" not in html and not re.search(r"(src|href)=\"?https?:", html)
    for text in ("alpha", "beta", "precision=f32", "MISMATCH-TEXT index [3]", "test_cast_float_to_int8_probe",
                 "raised: RuntimeError: no", "float4e2m1", "tiers met", "2 of 2 diverge"):
        assert text in html, text
    assert 'class="crash" title="double -&gt; float16: 1 crash"' in html


def test_html_escapes_what_backends_say(tmp_path):
    p = tmp_path / "r.json"
    write_results(p, [cast("float", "int8", "fail", message="<b>bold</b> & <script>x</script>")],
                  {"backend": {"name": "<i>n</i>", "version": "1"}, "tier": "strict"})
    html = render(load([p]), "html")
    assert "<script>x" not in html and "&lt;script&gt;x&lt;/script&gt;" in html and "<i>n</i>" not in html


def test_markdown(results):
    md = render(load(list(results)), "md")
    assert md.startswith("# opconform conformance report")
    assert "| alpha 1.0 | strict |  | 2 | 2 |" in md
    assert "`test_cast_float_to_int8_edge[0]` fail: MISMATCH-TEXT" in md
    assert "2 of 2 diverge" in md


def run_cli(*args):
    return opconform(*args)  # in this process (tests/cli_in_process.py)


def test_cli_writes_html_and_md(results, tmp_path):
    r = run_cli("report", *map(str, results), "-o", str(tmp_path / "out" / "r.html"))
    assert r.returncode == 0 and (tmp_path / "out" / "r.html").read_text().startswith("<!DOCTYPE html>")
    r = run_cli("report", *map(str, results), "-o", str(tmp_path / "r.md"))
    assert r.returncode == 0 and (tmp_path / "r.md").read_text().startswith("# opconform")


@pytest.mark.parametrize("args, needle", [
    (["report", "missing.json", "-o", "x.html"], "no such results file"),
    (["report", "a.json", "-o", "x", "--format", "pdf"], "invalid choice"),
])
def test_cli_errors_are_one_line(tmp_path, args, needle):
    r = run_cli(*args)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_not_a_results_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    r = run_cli("report", str(bad), "-o", str(tmp_path / "x.html"))
    assert r.returncode == 2 and "not a results file" in r.stderr


# ---- Markdown: to stdout, and escaped ----------------------------------------------------------------

def test_cli_writes_markdown_to_stdout(results):
    for extra in ([], ["-o", "-"], ["--format", "md"]):
        r = run_cli("report", *map(str, results), *extra)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout.startswith("# opconform conformance report") and "| alpha 1.0 | strict |" in r.stdout
    r = run_cli("report", *map(str, results), "--format", "html")
    assert r.returncode == 0 and r.stdout.startswith("<!DOCTYPE html>")


def test_md_text_and_code_spans():
    assert md_text("a|b <i>&amp; `x` \\ end\nnext") == "a\\|b &lt;i&gt;&amp;amp; \\`x\\` \\\\ end next"
    assert md_code("test_x[0]") == "`test_x[0]`"
    assert md_code("a ``b`` c") == "```a ``b`` c```"  # a fence longer than any run inside
    assert md_code("`x") == "`` `x ``"  # padded: a backtick at the edge would join the fence
    assert md_code("a|b") == "`a|b`" and md_code("a|b", cell=True) == "`a\\|b`"


def _cells(line: str) -> int:
    """The cells of a GFM table row: pipes not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)\|", line.replace("\\\\", ""))) - 1


def test_markdown_escapes_everything_it_shows(tmp_path):
    hostile = "x|y <script>alert(1)</script> & `tick` \\| end\nsecond line"
    recs = [dict(cast("float", "int8", "fail", message=hostile), case="test_a|b`c<d>"),
            dict(probe("test_p|q", ["0x01"]), case="test_p|q")]
    p = tmp_path / "r.json"
    write_results(p, recs, {"backend": {"name": "n|<b>", "version": "1|2", "settings": {"k|": "<v>"}},
                            "tier": "strict"})
    q = tmp_path / "q.json"
    write_results(q, [dict(probe("test_p|q", ["0x02"]), case="test_p|q")],
                  {"backend": {"name": "other", "version": "1"}, "tier": "strict"})
    md = render(load([p, q]), "md")
    assert md.endswith(f"\n{MARK}\n")  # the one HTML comment: what says opconform wrote the file
    prose = re.sub(r"(`+).*?\1", "", md.replace(MARK, "").replace("\\`", ""))  # code spans show < and > as they are
    assert "<" not in prose and ">" not in prose
    assert "fail: x\\|y &lt;script&gt;alert(1)&lt;/script&gt; &amp; \\`tick\\` \\\\\\| end\n" in md
    assert "- ``test_a|b`c<d>[0]`` fail" in md  # a code span shows the name as it is
    assert "- Settings of n\\|&lt;b&gt; 1\\|2: `k|=<v>`\n" in md
    for table in re.findall(r"(?:^\|.*\n)+", md, flags=re.M):
        rows = table.splitlines()
        assert len({_cells(row) for row in rows}) == 1, rows  # no cell broken by a pipe
    assert "| n\\|&lt;b&gt; 1\\|2 | strict |" in md


# ---- shards of one run: one column ------------------------------------------------------------------

CASES = [f"test_cast_case_{i:02d}" for i in range(20)]


def make_suite(root, names=CASES):
    root.mkdir(parents=True, exist_ok=True)
    entries = [{"name": n, "kind": "node"} for n in names]
    (root / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": entries}))
    return root


def write_shards(tmp_path, n, which=None, backend=None, suite=None, verdict=lambda name: "pass", content="h",
                 prefix="shard"):
    backend = backend or {"name": "ort", "version": "1.32", "settings": {"opt": "off"}}
    suite = suite if suite is not None else make_suite(tmp_path / "suite")
    paths = []
    for i in which or range(1, n + 1):
        recs = [dict(rec(c, verdict(c)), content=content) for c in CASES if shard_of(c, n) == i]
        path = tmp_path / f"{prefix}-{i}.json"
        write_results(path, recs, {"backend": backend, "tier": "strict", "shard": f"{i}/{n}",
                                   "suites": {str(suite): suite_hash(suite)}})
        paths.append(path)
    return paths


def test_shards_of_one_run_merge_into_one_column(tmp_path):
    paths = write_shards(tmp_path, 3)
    [run] = load(paths)
    assert run.label == "ort 1.32" and run.shards == [1, 2, 3] and run.shard_total == 3
    assert sorted(r["case"] for r in run.records) == CASES
    assert problems([run]) == []
    r = run_cli("report", *map(str, paths), "-o", str(tmp_path / "r.html"))
    assert r.returncode == 0 and r.stderr == ""
    assert "1 column(s); ort 1.32: 3 of 3 shards)" in r.stdout
    html = (tmp_path / "r.html").read_text()
    assert '<td class="num">3 of 3</td>' in html and all(str(p) in html for p in paths)


def test_missing_shards_and_the_cases_no_shard_judged_are_named(tmp_path):
    paths = write_shards(tmp_path, 3, which=[1, 3])
    unjudged = sorted(c for c in CASES if shard_of(c, 3) == 2)
    r = run_cli("report", *map(str, paths), "-o", str(tmp_path / "r.md"))
    assert r.returncode == 0
    warnings = r.stderr.splitlines()
    assert warnings[0] == (f"opconform report: warning: ort 1.32: shard(s) 2 of 3 missing (merged 2: "
                           f"{paths[0]}, {paths[1]})")
    # the suite the headers name is found here with the same manifest: its cases no shard judged
    assert warnings[1].startswith(f"opconform report: warning: ort 1.32: {len(unjudged)} of 20 case(s) of "
                                  f"{tmp_path / 'suite'} not judged: {', '.join(unjudged[:5])}")
    assert len(warnings) == 2
    md = (tmp_path / "r.md").read_text()
    assert "## Notes" in md and "shard(s) 2 of 3 missing" in md and "| ort 1.32 | strict | 2 of 3 |" in md


def test_the_suite_can_be_given(tmp_path):
    paths = write_shards(tmp_path, 2, which=[1], suite=make_suite(tmp_path / "elsewhere"))
    moved = make_suite(tmp_path / "checkout")  # the same manifest at another path (another machine)
    (tmp_path / "elsewhere" / "manifest.json").unlink()
    assert [n for n in problems(load(paths)) if "not judged" in n] == []  # the header's path is gone
    notes = problems(load(paths), moved)
    assert any(f"of 20 case(s) of {moved} not judged" in n for n in notes)
    other = make_suite(tmp_path / "other", CASES[:3])
    assert any(f"was not run on {other}" in n for n in problems(load(paths), other))
    r = run_cli("report", *map(str, paths), "--suite", str(tmp_path / "nope"))
    assert r.returncode == 2 and "--suite" in r.stderr and len(r.stderr.splitlines()) == 1


def test_shards_that_disagree_are_refused(tmp_path):
    paths = write_shards(tmp_path, 2)
    again = write_shards(tmp_path, 2, which=[1], verdict=lambda c: "fail", prefix="rerun")
    same = write_shards(tmp_path, 2, which=[1], prefix="same")
    [run] = load([*paths, *same])  # the same shard twice, alike: fine
    assert len(run.records) == len(CASES)
    first = sorted(c for c in CASES if shard_of(c, 2) == 1)[0]
    r = run_cli("report", *map(str, [*paths, *again]), "-o", str(tmp_path / "r.html"))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert f"shards disagree: {first}[0] is pass in {paths[0]} and fail in {again[0]}" in r.stderr
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(ReportError):
        load([*paths, *again])


def test_shards_of_other_settings_or_suites_stay_apart(tmp_path):
    ort = write_shards(tmp_path, 2)
    fast = write_shards(tmp_path, 2, backend={"name": "ort", "version": "1.32", "settings": {"opt": "all"}},
                        prefix="fast")
    runs = load([*ort, *fast])
    assert [run.label for run in runs] == ["ort 1.32 (opt=off)", "ort 1.32 (opt=all)"]
    assert [len(run.records) for run in runs] == [20, 20]
    newer = write_shards(tmp_path, 2, which=[2], suite=make_suite(tmp_path / "suite2", CASES + ["test_new"]),
                         content="h2", prefix="newer")
    runs = load([ort[0], *newer])  # shard 1 of one suite, shard 2 of another: not one run
    assert [run.shards for run in runs] == [[1], [2]]
    assert [run.label for run in runs] == [f"ort 1.32 [{ort[0]}]", f"ort 1.32 [{newer[0]}]"]
    assert sum("missing" in n for n in problems(runs)) == 2


def test_columns_alike_are_labelled_by_their_files(tmp_path):
    a, b = tmp_path / "before.json", tmp_path / "after.json"
    header = {"backend": {"name": "ort", "version": "dev", "settings": {}}, "tier": "strict"}
    write_results(a, [probe("test_p", ["0x01"])], header)
    write_results(b, [probe("test_p", ["0x02"])], header)
    runs = load([a, b])
    assert [run.label for run in runs] == [f"ort dev [{a}]", f"ort dev [{b}]"]
    [row] = build(runs)["probes"]["rows"]
    assert [c["text"] for c in row["cells"]] == ["0x01", "0x02"] and row["diverge"]  # two columns, not one
    assert [run.label for run in load([a, a])] == [f"ort dev [{a}] #1", f"ort dev [{a}] #2"]


def test_inputs_from_different_suites_are_warned_about(tmp_path):
    suite = make_suite(tmp_path / "suite")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    write_results(a, [dict(rec("test_x", "pass"), content="h1"), dict(rec("test_y", "pass"), content="h1")],
                  {"backend": {"name": "a", "version": "1"}, "suites": {"cases": "1" * 64}})
    write_results(b, [dict(rec("test_x", "pass"), content="h2"), dict(rec("test_y", "pass"), content="h1")],
                  {"backend": {"name": "b", "version": "1"}, "suites": {"cases": "2" * 64}})
    r = run_cli("report", str(a), str(b), "-o", str(tmp_path / "r.html"), "--suite", str(suite))
    assert r.returncode == 0
    warnings = [w for w in r.stderr.splitlines() if "different suites" in w]
    assert warnings == [
        "opconform report: warning: inputs from different suites: cases has manifest 111111111111 in a 1; "
        "manifest 222222222222 in b 1",
        "opconform report: warning: inputs from different suites: a 1 and b 1 ran other content for 1 case(s): test_x"]
    assert "ran other content for 1 case(s): test_x" in (tmp_path / "r.html").read_text()


def test_old_results_files_without_the_new_fields_load(results):
    runs = load(list(results))
    assert [(run.shard_total, run.suites) for run in runs] == [(None, {}), (None, {})] and problems(runs) == []


@pytest.mark.parametrize("doc, needle, status", [
    # a bad record is left out, named in one line; the report is made of the rest (issue 19, item 8)
    ({"records": [{"case": "x"}]}, "warning: {bad}: record 0: no data set, skipped", 1),
    ({"records": "x"}, "{bad}: not a results file (its records are not a list)", 2),
    ({"shard": "3/2", "records": []}, "shard '3/2' is not I/N", 2),
])
def test_damaged_results_files_are_one_line_errors(tmp_path, doc, needle, status):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "opconform-results/1", **doc}))
    r = run_cli("report", str(bad))
    needle = needle.format(bad=bad)
    assert r.returncode == status and needle in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_the_report_never_overwrites_a_results_file(results, tmp_path):
    r = run_cli("report", *map(str, results), "-o", str(results[0]))
    assert r.returncode == 2 and "is an opconform data file, not a report" in r.stderr
    assert results[0].read_text().startswith("{")


def test_where_the_nodes_ran_is_shown(tmp_path):
    """Records' placement: items per place, those not run where the run asked (a fallback), those run in a
    lower precision than declared; a run whose records say nothing shows nothing."""
    def placed(case, verdict, where, requested, lowered=False):
        r = rec(case, verdict)
        node = {"node": "n", "op": "Cast", "provider": where}
        if lowered:
            node.update(lowered=True, declared="f32", precision="bf16", ran_as="bf16")
        r["placement"] = {"requested": requested, "nodes": [node]}
        return r
    recs = [placed("test_cast_a", "pass", "CPU", "CPU"), placed("test_cast_b", "pass", "CPU", "CPU", lowered=True),
            placed("test_cast_c", "unsupported", "CPUExecutionProvider", "XnnpackExecutionProvider"),
            rec("test_cast_d", "pass")]
    p, q = tmp_path / "r.json", tmp_path / "q.json"
    write_results(p, recs, {"backend": {"name": "x", "version": "1"}, "tier": "strict"})
    write_results(q, [rec("test_cast_a", "pass")], {"backend": {"name": "y", "version": "1"}, "tier": "strict"})
    [run, other] = build(load([p, q]))["runs"]
    assert other["placements"] is None
    assert run["placements"] == {"rows": [("CPU", 1), ("CPU (f32 ran as bf16)", 1), ("CPUExecutionProvider", 1)],
                                 "recorded": 3, "elsewhere": 1, "lowered": 1}
    for fmt in ("md", "html"):
        text = render(load([p, q]), fmt)
        assert "Where the nodes ran on x 1 (3 items say)" in text and "CPU (f32 ran as bf16): 1" in text
        assert "Where the nodes ran on y" not in text


# ---- failures against a sentence of the texts, apart from failures against a reading ----------------------------
TRUNCATION = "float -> int8..uint64 truncates fractions toward zero (docs/readings.md#truncation)"
IEEE_RNE = "float targets round to nearest, ties to even (docs/readings.md#ieee-rne)"


def test_records_of_judged_items_carry_their_reading(tmp_path):
    """The record says whether the item's expectation rests on a reading: case.json's text, or no field."""
    import numpy as np

    from generator import dtypes
    from generator.case import Case, case_meta, node_model
    from generator.serialize import read_case, write_case
    from runners.backends.opconform import OpconformBackend
    from runners.execute import run_case_dataset

    f32, i8 = dtypes.get("float"), dtypes.get("int8")
    model = node_model("Cast", [("x", f32, (2,))], [("y", i8, (2,))], {"to": i8.onnx}, 13)
    x, y = np.array([1.9, -1.9], np.float32), np.array([1, -1], np.int8)
    for name, kind, reading in (("test_cast_read", "node", TRUNCATION), ("test_cast_stated", "node", None),
                                ("test_cast_read_probe", "probe", None)):
        meta = case_meta(op="Cast", domain="", opset=13, family="cast", spec_file="Cast.txt", clause="c",
                         compare={"mode": "exact"} if kind == "node" else {"mode": "none"}, flags=[], seed=0,
                         params={}, reading=reading)
        if kind == "probe":  # what a probe's case.json holds: no expectation, no reading; a stray one is not judged
            meta["reading"] = TRUNCATION
        write_case(Case(name, kind, model, [[x]], [[y]] if kind == "node" else None, meta), tmp_path)
    records = {d.name: run_case_dataset(OpconformBackend(), read_case(d), 0, "strict", {}).to_record()
               for kind in ("node", "probe") for d in (tmp_path / kind).iterdir()}
    assert records["test_cast_read"]["reading"] == TRUNCATION and records["test_cast_read"]["verdict"] == "pass"
    assert "reading" not in records["test_cast_stated"] and "reading" not in records["test_cast_read_probe"]


def _fails(tmp_path):
    a = [dict(cast("float", "int8", "fail"), reading=TRUNCATION), dict(cast("double", "int8", "fail"), reading=TRUNCATION),
         dict(cast("float", "float16", "fail"), reading=IEEE_RNE), cast("float", "float4e2m1", "fail"),
         dict(cast("float", "uint8", "pass"), reading=TRUNCATION), dict(cast("float", "int4", "error"), reading=TRUNCATION),
         rec("test_dql_x", "fail", family="dynamic_quantize_linear")]
    b = [dict(cast("float", "int8", "pass"), reading=TRUNCATION), cast("float", "float4e2m1", "fail")]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    write_results(pa, a, {"backend": {"name": "alpha", "version": "1"}, "tier": "strict"})
    write_results(pb, b, {"backend": {"name": "beta", "version": "2"}, "tier": "strict"})
    return pa, pb


def test_failures_against_a_reading_are_counted_apart(tmp_path):
    bases = build(load(list(_fails(tmp_path))))["bases"]
    rows = [(row["family"], row["reading"], row["counts"]) for row in bases["rows"]]
    assert rows == [("cast", None, [1, 1]), ("cast", TRUNCATION, [2, 0]), ("cast", IEEE_RNE, [1, 0]),
                    ("dynamic_quantize_linear", None, [1, 0])]
    assert bases["sentence"] == [2, 1] and bases["reading"] == [3, 0]


def test_html_and_markdown_show_failures_against_a_reading_apart(tmp_path):
    runs = load(list(_fails(tmp_path)))
    html, md = render(runs, "html"), render(runs, "md")
    for page in (html, md):
        assert "Failures against a sentence of the texts, and against a reading" in page
        assert "failing items against a reading" in page
    shown = TRUNCATION.replace(">", "&gt;")
    assert f"reading: {shown}" in html and f"rests on a reading: {shown}" in html
    assert "| cast | a sentence of the texts | 1 | 1 |" in md
    assert "| | failing items against a reading | 3 | 0 |" in md
    assert f"(rests on a reading: {md_text(TRUNCATION)})" in md


def test_a_results_file_without_readings_is_said_to_be_one(tmp_path):
    """A column where no record carries a reading (an older results file) is named: its failures all count as a
    sentence's."""
    old = tmp_path / "old.json"
    write_results(old, [cast("float", "int8", "fail")], {"backend": {"name": "old", "version": "1"}, "tier": "strict"})
    runs = load([*_fails(tmp_path), old])
    assert build(runs)["bases"]["unrecorded"] == ["old 1"]  # beta records one on a pass
    for page in (render(runs, "html"), render(runs, "md")):
        assert "No item of old 1 records a reading" in page
