"""opconform report: results files of several backends -> one HTML / Markdown report."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from runners.report import build, load, render
from runners.results import write_results


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
    assert "| alpha | 1.0 | strict | 2 | 2 |" in md
    assert "`test_cast_float_to_int8_edge[0]` fail: MISMATCH-TEXT" in md
    assert "2 of 2 diverge" in md


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "runners.cli", *args], capture_output=True, text=True)


def test_cli_writes_html_and_md(results, tmp_path):
    r = run_cli("report", *map(str, results), "-o", str(tmp_path / "out" / "r.html"))
    assert r.returncode == 0 and (tmp_path / "out" / "r.html").read_text().startswith("<!DOCTYPE html>")
    r = run_cli("report", *map(str, results), "-o", str(tmp_path / "r.md"))
    assert r.returncode == 0 and (tmp_path / "r.md").read_text().startswith("# opconform")


@pytest.mark.parametrize("args, needle", [
    (["report", "missing.json", "-o", "x.html"], "no such results file"),
    (["report", "a.json"], "the following arguments are required: -o/--output"),
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
