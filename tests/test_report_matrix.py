"""opconform report's conformance matrix (a row per op and opset, a column per backend x device x release), the
history of one backend across releases, and which shards merge (runners/report_matrix.py, report_inputs.py)."""

from __future__ import annotations

import gzip
import json
import re

from runners.gate import shard_of
from runners.report import build, load, problems, render
from runners.report_matrix import Cell, version_key
from runners.results import suite_hash, write_results

from cli_in_process import opconform

MACHINE = {"cpu": "X", "arch": "x86_64", "os": "Linux", "class": "x86_64-avx2", "features": ["avx2"]}


def rec(case, verdict, op="QuantizeLinear", opset=19, dataset=0, params=None):
    r = {"case": case, "dataset": dataset, "kind": "node", "verdict": verdict, "op": op, "family": "quantize_linear",
         "params": params or {"x": "float", "y": "uint8"}, "message": ""}
    if opset is not None:
        r["opset"] = opset
    return r


def write(path, records, name="ort", version="1.0", settings=None, machine=MACHINE, **header):
    write_results(path, records, {"backend": {"name": name, "version": version,
                                              "settings": settings or {"providers": ["CPUExecutionProvider"]}},
                                  "tier": "strict", "machine": machine, **header})
    return path


def test_a_cell_counts_judges_and_is_conformant_only_when_every_judged_item_passes():
    c = Cell()
    c.counts.update({"pass": 412, "fail": 5, "error": 3, "unsupported": 30, "probe": 2})
    assert (c.judged, c.passed, c.conformant, c.worst) == (420, 412, False, "error")
    assert c.text == "98.1% 412/420 5F 3E 30U 2P"
    c = Cell()
    c.counts.update({"pass": 9999, "crash": 1})
    assert c.rate == "99.9%" and c.worst == "crash"  # never 100% with a failure in it
    c = Cell()
    c.counts.update({"pass": 4, "unsupported": 2})
    assert c.conformant and c.text == "✓ 100% 4 2U"
    c = Cell()
    c.counts.update({"unsupported": 3, "probe": 1})
    assert not c.conformant and c.text == "- 3U 1P" and c.worst == "none"
    assert Cell().text == ""


def test_rows_per_op_and_opset_columns_per_backend_and_the_type_groups_on_demand(tmp_path):
    a = write(tmp_path / "a.json", [rec("q1", "pass"), rec("q2", "fail"), rec("q3", "pass", opset=21),
                                    rec("c1", "pass", op="Cast", opset=13, params={"from": "float", "to": "int8"}),
                                    rec("c2", "unsupported", op="Cast", opset=13,
                                        params={"from": "float", "to": "float8e4m3fn"})])
    b = write(tmp_path / "b.json", [rec("q1", "pass"), rec("q2", "pass"), rec("q3", "crash", opset=21)],
              name="openvino", version="2026.4.1", settings={"device": "CPU"})
    view = build(load([a, b]), view="matrix")["matrix"]
    t = view["main"]
    assert [c["label"] for c in t["columns"]] == ["ort 1.0", "openvino 2026.4.1"]
    assert [c["device"] for c in t["columns"]] == ['providers=["CPUExecutionProvider"]', "device=CPU"]
    assert [(r["op"], r["opset"]) for r in t["rows"]] == [("Cast", "13"), ("QuantizeLinear", "19"),
                                                           ("QuantizeLinear", "21")]
    cells = {(r["op"], r["opset"]): [c.text for c in r["cells"]] for r in t["rows"]}
    assert cells["QuantizeLinear", "19"] == ["50.0% 1/2 1F", "✓ 100% 2"]
    assert cells["QuantizeLinear", "21"] == ["✓ 100% 1", "0.0% 0/1 1C"]
    assert cells["Cast", "13"] == ["✓ 100% 1 1U", ""]  # a column with no item of the row: an empty cell
    assert [r["conformant"] for r in t["rows"]] == [1, 1, 1]
    assert [c.text for c in t["total"]] == ["75.0% 3/4 1F 1U", "66.7% 2/3 1C"]
    typed = build(load([a, b]), view="matrix", by="types")["matrix"]["main"]
    assert [(r["op"], r["group"]) for r in typed["rows"]] == [
        ("Cast", "from=float, to=float8e4m3fn"), ("Cast", "from=float, to=int8"),
        ("QuantizeLinear", "x=float, y=uint8"), ("QuantizeLinear", "x=float, y=uint8")]


def test_an_older_results_file_takes_its_opsets_from_the_suite_it_names(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": [
        {"name": "q1", "kind": "node", "op": "QuantizeLinear", "opset": 23}]}))
    a = write(tmp_path / "a.json", [rec("q1", "pass", opset=None), rec("gone", "pass", opset=None)],
              suites={str(suite): suite_hash(suite)})
    rows = build(load([a]), view="matrix")["matrix"]["main"]["rows"]
    assert [(r["op"], r["opset"]) for r in rows] == [("QuantizeLinear", "23"), ("QuantizeLinear", "?")]


def test_one_backend_at_several_releases_gets_a_series_and_what_each_release_fixed_and_broke(tmp_path):
    old = [rec("a", "fail"), rec("b", "pass"), rec("c", "pass"), rec("d", "unsupported"), rec("e", "fail"),
           rec("f", "pass"), rec("a", "pass", dataset=1)]
    mid = [rec("a", "pass"), rec("b", "fail"), rec("c", "unsupported"), rec("d", "pass"), rec("e", "crash"),
           rec("f", "pass"), rec("a", "pass", dataset=1)]
    new = [rec("a", "pass"), rec("b", "pass"), rec("c", "unsupported"), rec("d", "fail"), rec("e", "crash"),
           rec("f", "pass"), rec("a", "pass", dataset=1), rec("g", "pass")]
    # given out of order, and 1.10 after 1.9 (by number, not by text)
    paths = [write(tmp_path / "n.json", new, version="1.10.0"), write(tmp_path / "o.json", old, version="1.8.2"),
             write(tmp_path / "m.json", mid, version="1.9.0"),
             write(tmp_path / "x.json", old[:2], name="tract", version="0.23.9", settings={})]
    m = build(load(paths), view="matrix")["matrix"]
    assert [c["label"] for c in m["main"]["columns"]] == ["ort 1.10.0", "tract 0.23.9"]  # the newest of a series
    [s] = m["series"]
    assert s["name"] == "ort" and [c["label"] for c in s["table"]["columns"]] == ["ort 1.8.2", "ort 1.9.0",
                                                                                   "ort 1.10.0"]
    first, second = s["history"]
    assert (first["from"], first["to"], first["common"]) == ("ort 1.8.2", "ort 1.9.0", 7)
    assert first["counts"] == {"fixed": 1, "broke": 1, "lost": 1, "gained": 1, "changed": 1}
    [row] = first["rows"]
    assert row["items"] == {"fixed": ["a[0] fail -> pass"], "broke": ["b[0] pass -> fail"],
                            "lost": ["c[0] pass -> unsupported"], "gained": ["d[0] unsupported -> pass"],
                            "changed": ["e[0] fail -> crash"]}
    assert second["counts"] == {"fixed": 1, "broke": 1, "lost": 0, "gained": 0, "changed": 0}
    assert (second["only_new"], second["only_old"]) == (1, 0)
    assert version_key("2026.4.1-22982-e213a147257-releases/2026/4") > version_key("2026.0.0")


def test_the_matrix_view_in_markdown_and_html_from_the_command_line(tmp_path):
    a = write(tmp_path / "a.json", [rec("a", "fail"), rec("b", "pass")], version="1.20.1")
    b = write(tmp_path / "b.json", [rec("a", "pass"), rec("b", "pass")], version="1.32.0")
    r = opconform("report", str(a), str(b), "--view", "matrix", "-o", str(tmp_path / "m.md"), "--title", "Board")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "m.md").read_text()
    assert md.startswith("# Board\n") and "## Conformance matrix" in md
    assert "| QuantizeLinear | 19 | ✓ 100% 2 | 1/1 |" in md  # the main matrix: the newest release
    assert "| QuantizeLinear | 19 | 50.0% 1/2 1F | ✓ 100% 2 | 1/2 |" in md
    assert "| ort 1.20.1 | ort 1.32.0 | 1 | 0 | 0 | 0 | 0 | 2 |" in md
    assert "`a[0] fail -> pass`" in md
    assert "Per family" not in md and "failing items" not in md  # the matrix view alone
    for table in re.findall(r"(?:^\|.*\n)+", md, flags=re.M):  # every row as wide as its header
        assert len({len(re.findall(r"(?<!\\)\|", row)) for row in table.splitlines()}) == 1, table
    r = opconform("report", str(a), str(b), "--view", "matrix", "-o", str(tmp_path / "m.html"))
    html = (tmp_path / "m.html").read_text()
    assert r.returncode == 0 and '<h2 id="matrix">Conformance matrix</h2>' in html and "by release</h2>" in html
    assert 'class="num pass" title="2 pass">✓ 100% 2<' in html and "a[0] fail -&gt; pass" in html
    full = render(load([a, b]), "md")  # the full report carries the matrix too
    assert "## Conformance matrix" in full and "## Per family" in full
    r = opconform("report", str(a), "--view", "matrix", "--baseline", str(a))
    assert r.returncode == 2 and "--baseline needs --view full" in r.stderr


def test_a_gzipped_results_file_is_read_and_a_corrupt_one_refused_in_one_line(tmp_path):
    a = write(tmp_path / "a.json", [rec("a", "pass")])
    z = tmp_path / "a.json.gz"
    z.write_bytes(gzip.compress(a.read_bytes()))
    [run] = load([z])
    assert run.records[0]["case"] == "a"
    z.write_bytes(gzip.compress(a.read_bytes())[:-12] + b"garbage")
    r = opconform("report", str(z))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "not a results file" in r.stderr


CASES = [f"test_q_{i:02d}" for i in range(12)]


def _shards(tmp_path, n, prefix, machine=MACHINE, version="1.32"):
    out = []
    for i in range(1, n + 1):
        out.append(write(tmp_path / f"{prefix}-{i}.json", [rec(c, "pass") for c in CASES if shard_of(c, n) == i],
                         version=version, machine=machine, shard=f"{i}/{n}"))
    return out


def test_shards_merge_only_on_one_machine_class_and_version_and_say_why_not(tmp_path):
    [run] = load(_shards(tmp_path, 2, "same"))
    assert run.shards == [1, 2] and problems([run]) == []
    vnni = {**MACHINE, "class": "x86_64-avx512-vnni"}
    one, two = _shards(tmp_path, 2, "a")[0], _shards(tmp_path, 2, "b", machine=vnni)[1]
    runs = load([one, two])
    assert [r.shards for r in runs] == [[1], [2]]
    [line] = [n for n in problems(runs) if "not merged" in n]
    assert line == (f"shards of ort not merged: {one} (shard(s) 1 of 2) and {two} (shard(s) 2 of 2) differ in "
                    "machine class (x86_64-avx2 against x86_64-avx512-vnni)")
    other = _shards(tmp_path, 2, "c", version="1.31")[1]
    [line] = [n for n in problems(load([one, other])) if "not merged" in n]
    assert line.endswith("differ in version (1.32 against 1.31)")
