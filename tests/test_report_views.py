"""opconform report, the views a gate needs: every failing item reachable in groups (family, fault model,
configuration) with counts, each item's node, inputs, spec clause and reproducer from its case directory, the
baseline view (new / known / fixed), grid cells with their counts as text, the probe matrix folded away with
one backend, and the run's selection in the header instead of "not judged" warnings."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator.serialize import read_case, write_manifest
from runners.execute import run_case_dataset
from runners.gate import baseline_text
from runners.report import build, render
from runners.report_groups import failing
from runners.report_inputs import load, problems
from runners.results import suite_hash, write_results

from cli_in_process import opconform

ROOT = Path(__file__).resolve().parents[1]
QLINEAR = "test_qlinearconv_witness_explicit_dilated_per_channel_bias"  # data set 9 fails on onnxruntime 1.32
FLOAT8 = "test_cast_bfloat16_to_float8e4m3fn_nosat_edge"  # fails on onnxruntime (480 -> 448), passes on the reference
PASSING = "test_cast_bfloat16_to_bfloat16_edge"


def rec(case, verdict, family="cast", params=None, diagnosis=None, dataset=0, message=None, content=None):
    r = {"case": case, "dataset": dataset, "kind": "node", "verdict": verdict, "family": family, "op": "Cast",
         "params": params if params is not None else {"from": "float", "to": "int8"},
         "message": message or f"{case}[{dataset}]: {verdict}", "outcome": "passed", "mismatches": []}
    if diagnosis is not None:
        r["diagnosis"] = diagnosis
    if content is not None:
        r["content"] = content
    return r


def write(path, records, backend=None, **header):
    write_results(path, records, {"backend": backend or {"name": "ort", "version": "1", "settings": {}},
                                  "tier": "strict", **header})
    return path


# ---- every failing item reachable, in groups with counts ---------------------------------------------

def many_failures() -> list[dict]:
    """900 failing items over two families, several fault combinations and type pairs, and some passes."""
    types = ["float", "double", "float16", "bfloat16", "int8", "uint8"]
    out = []
    for n in range(900):
        diag = [["cast.via_float"], ["cast.round_half_away", "cast.via_float"], [], None][n % 4]
        verdict = "error" if diag is None and n % 8 == 3 else "fail"
        fam = "cast" if n % 3 else "cast_like"
        out.append(rec(f"test_{fam}_{n:04d}", verdict, family=fam, diagnosis=diag,
                       params={"from": types[n % 6], "to": types[(n // 6) % 6], "saturate": n % 2}))
    return out + [rec(f"test_cast_ok_{n}", "pass") for n in range(50)]


def walk(groups) -> list[dict]:
    return [item for fam in groups for fault in fam["faults"] for c in fault["configs"] for item in c["items"]]


def test_every_failing_item_is_in_exactly_one_group_and_the_counts_add_up(tmp_path):
    records = many_failures()
    [run] = build(load([write(tmp_path / "r.json", records)]))["runs"]
    view = run["failures"]
    items = walk(view["groups"])
    assert view["total"] == 900 == len(items)
    assert sorted((r["case"], r["dataset"]) for r in items) == sorted((r["case"], r["dataset"])
                                                                      for r in failing(records))
    for fam in view["groups"]:
        assert fam["count"] == sum(f["count"] for f in fam["faults"])
        for fault in fam["faults"]:
            assert fault["count"] == sum(c["count"] for c in fault["configs"])
            assert all(c["count"] == len(c["items"]) for c in fault["configs"])
    labels = {f["label"] for fam in view["groups"] for f in fam["faults"]}
    assert "consistent with cast.round_half_away + cast.via_float" in labels
    assert any(label.startswith("wrong values no fault model reproduces") for label in labels)
    assert any(label.startswith("error: the backend raised") for label in labels)
    configs = {c["label"] for fam in view["groups"] for f in fam["faults"] for c in f["configs"]}
    assert "float16 -> double, saturate=0" in configs  # the type pair first, then the other parameters


def test_html_reaches_every_failing_item_and_markdown_states_its_cap(tmp_path):
    path = write(tmp_path / "r.json", many_failures())
    html = render(load([path]), "html")
    for n in range(900):
        assert f"test_{'cast' if n % 3 else 'cast_like'}_{n:04d}[0]" in html
    assert "the first 400" not in html
    assert re.search(r'<details class="family"><summary><span class="count">600</span> cast</summary>', html)
    same = [rec(f"test_cast_same_{n:02d}", "fail", diagnosis=["cast.via_float"]) for n in range(30)]
    md = render(load([write(tmp_path / "more.json", many_failures() + same)]), "md")
    assert "\n- cast: 630\n" in md and "\n- cast\\_like: 300\n" in md
    assert re.search(r"\n  - \d+: consistent with: \S.* \(cast\.round\\_half\\_away\); \S.* \(cast\.via\\_float\)\n", md)
    assert "each configuration names at most 20 of its items and shows the first" in md
    assert re.search(r"\n    - 30: float -&gt; int8\. Items: (test\\_cast\\_same\\_\d+\\\[0\\\], ){19}"
                     r"test\\_cast\\_same\\_19\\\[0\\\], and 10 more: see the HTML report\n", md)


def test_markdown_lists_a_fault_models_first_configurations_and_counts_the_rest(tmp_path):
    """A CI step summary holds 1 MiB: past MD_CONFIGS configurations a fault model's group says how many
    more there are and how many items they hold, so its counts still add up."""
    from runners.report import MD_CONFIGS

    pairs = [rec(f"test_cast_pair_{n:02d}", "fail", diagnosis=["cast.via_float"], params={"from": "float", "to": f"t{n}"})
             for n in range(3 * MD_CONFIGS)]
    md = render(load([write(tmp_path / "r.json", many_failures() + pairs)]), "md")
    faults = re.split(r"\n  - (?=\d+: )", md.split(f"failing items ({900 + len(pairs)})")[1])[1:]
    capped = 0
    for text in faults:
        total = int(text.split(":")[0])
        shown = [int(n) for n in re.findall(r"\n    - (\d+): ", text)]
        more = re.search(r"\n    - and (\d+) more configurations \((\d+) items\): see the HTML report\n", text)
        assert len(shown) <= MD_CONFIGS
        assert sum(shown) + (int(more[2]) if more else 0) == total
        capped += more is not None
    assert capped  # the test's failures do run past the cap


# ---- an item's node, inputs, spec clause and reproducer, from its case directory ------------------------

@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    (root / "node").mkdir()
    for name in (QLINEAR, FLOAT8, PASSING):
        shutil.copytree(ROOT / "cases" / "node" / name, root / "node" / name)
    write_manifest(root, {}, [{"name": n, "kind": "node"} for n in (QLINEAR, FLOAT8, PASSING)])
    return root


@pytest.fixture(scope="module")
def ort_results(suite, tmp_path_factory) -> Path:
    """A real onnxruntime run of the suite, as the plugin records it (its node ids, the suite's hash)."""
    from runners.backends.registry import get_backend

    backend = get_backend("onnxruntime")
    records = []
    for name in (QLINEAR, FLOAT8, PASSING):
        case = read_case(suite / "node" / name)
        for i in range(case.n_datasets):
            r = run_case_dataset(backend, case, i, "strict", {}).to_record()
            records.append(dict(r, nodeid=f"{suite}/node/{name}/model.onnx::{name}[{i}]"))
    path = tmp_path_factory.mktemp("results") / "ort.json"
    return write(path, records, {"name": "onnxruntime", "version": "1.32.0", "settings": {}},
                 suites={str(suite): suite_hash(suite)})


def test_a_qlinearconv_failure_shows_its_node_inputs_scales_zero_points_spec_and_reproducer(ort_results, suite):
    [run] = build(load([ort_results]))["runs"]
    items = {(r["case"], r["dataset"]): r for r in walk(run["failures"]["groups"])}
    d = items[(QLINEAR, 9)]["details"]
    assert d["nodes"] == ["QLinearConv(auto_pad='NOTSET', dilations=[2, 2], pads=[1, 1, 1, 1]): x, x_scale, "
                          "x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B -> y"]
    assert d["opset"] == "ai.onnx 10" and d["spec"].startswith("QLinearConv-10.txt: Summary")
    assert d["reading"].startswith("qlinear-requantization")
    inputs = {line.split(":")[0]: line for line in d["inputs"]}
    assert inputs["x_scale"] == "x_scale: float[] = 0.0078125"
    assert inputs["w_zero_point"] == "w_zero_point: int8[2] = [-127 -126]"
    assert inputs["x"].startswith("x: uint8[1, 2, 7, 7] = [14 0 7 0")
    assert d["nodeid"] == f"{suite}/node/{QLINEAR}/model.onnx::{QLINEAR}[9]"
    assert d["repro"] == f"opconform repro '{suite}/node/{QLINEAR}[9]' --backend onnxruntime"  # [ ] quoted
    html = render(load([ort_results]), "html")
    for text in ("x_scale: float[] = 0.0078125", "QLinearConv-10.txt", "rests on a reading: qlinear-requantization",
                 f"opconform repro &#39;{suite}/node/{QLINEAR}[9]&#39; --backend onnxruntime",
                 f"model.onnx::{QLINEAR}[9]"):
        assert text in html


def test_a_case_name_from_a_record_is_never_a_path(tmp_path, suite):
    """A record naming a case the suite's manifest does not list (a path, another case) gets no details."""
    records = [rec("../../../etc", "fail"), rec(f"node/{QLINEAR}", "fail"), rec("test_elsewhere", "fail")]
    path = write(tmp_path / "r.json", records, suites={str(suite): suite_hash(suite)})
    [run] = build(load([path]))["runs"]
    for item in walk(run["failures"]["groups"]):
        assert item["details"]["problem"] == "not in the suite found here" and item["details"]["repro"] is None


def test_an_item_whose_case_changed_since_it_was_judged_says_so(tmp_path, suite):
    path = write(tmp_path / "r.json", [rec(QLINEAR, "fail", content="0" * 64)], suites={str(suite): suite_hash(suite)})
    [item] = walk(build(load([path]))["runs"][0]["failures"]["groups"])
    assert "other content" in item["details"]["problem"] and item["details"]["inputs"] == []


# ---- grids: counts as text -------------------------------------------------------------------------------

def test_grid_cells_carry_their_counts_as_text(tmp_path):
    records = [rec("a", "pass"), rec("b", "pass"), rec("c", "fail"), rec("d", "error"),
               rec("e", "pass", params={"from": "float", "to": "uint8"})]
    path = write(tmp_path / "r.json", records)
    [grid] = build(load([path]))["runs"][0]["grids"]
    cells = {(row, col): cell["text"] for row, line in grid["rows"] for col, cell in zip(grid["cols"], line)}
    assert cells == {("float", "int8"): "2/4 E", ("float", "uint8"): "1"}
    assert '<td class="error" title="float -&gt; int8: 2 pass, 1 fail, 1 error">2/4 E</td>' in render(load([path]))
    md = render(load([path]), "md")
    assert "| float | 2/4 E | 1 |" in md and "F fail, E error" in md


# ---- the probe matrix with one backend ----------------------------------------------------------------------

def probe(case, bits):
    return dict(rec(case, "probe"), kind="probe", outputs=[{"bits": bits, "values": bits}])


def test_the_probe_matrix_folds_away_when_one_backend_has_nothing_to_compare_against(tmp_path):
    one = write(tmp_path / "a.json", [probe("test_p", ["0x01"])])
    other = write(tmp_path / "b.json", [probe("test_p", ["0x02"])], {"name": "ov", "version": "2"})
    alone = build(load([one]))["probes"]
    assert alone["collapsed"] and alone["compared"] == ["ort 1"]
    html = render(load([one]))
    assert "Only ort 1 has a probe result: nothing to compare against" in html
    assert "<details><summary>1 probe item(s)</summary>" in html
    both = build(load([one, other]))["probes"]
    assert not both["collapsed"] and both["diverging"] == 1
    assert "<details open><summary>1 probe item(s)</summary>" in render(load([one, other]))


# ---- the selection in the header -----------------------------------------------------------------------------

def selection(cases, **kw):
    return {"family": ["cast"], "k": None, "m": None, "shard": None, "paths": ["cases"], "cases": cases, **kw}


def make_suite(root, names):
    root.mkdir()
    write_manifest(root, {}, [{"name": n, "kind": "node"} for n in names])
    return root


def test_cases_outside_the_selection_are_not_warned_about_selected_ones_without_a_result_are(tmp_path):
    suite = make_suite(tmp_path / "s", [f"test_c{i}" for i in range(10)])
    header = {"suites": {str(suite): suite_hash(suite)}}
    all_judged = write(tmp_path / "a.json", [rec("test_c1", "pass"), rec("test_c2", "pass")],
                       selection=selection(["test_c1", "test_c2"]), **header)
    assert problems(load([all_judged])) == []
    one_missing = write(tmp_path / "b.json", [rec("test_c1", "pass")],
                        selection=selection(["test_c1", "test_c2"], k="c1 or c2"), **header)
    assert problems(load([one_missing])) == [f"ort 1: 1 of the 2 selected case(s) of {suite} have no result: test_c2"]
    whole = write(tmp_path / "c.json", [rec("test_c1", "pass")], selection=selection(None, family=[]), **header)
    [note] = problems(load([whole]))
    assert note.startswith(f"ort 1: 9 of the 10 selected case(s) of {suite} have no result: test_c0, test_c2")
    html, md = render(load([one_missing])), render(load([one_missing]), "md")
    assert '--family cast -k &#39;c1 or c2&#39; cases: 2 case(s)' in html  # shell-quoted (runners/commands.py)
    assert "- Selection of ort 1: \\--family cast -k 'c1 or c2' cases: 2 case(s)" in md


def test_shards_of_a_selected_run_merge_their_selections(tmp_path):
    suite = make_suite(tmp_path / "s", ["test_a", "test_b", "test_c"])
    header = {"suites": {str(suite): suite_hash(suite)}}
    one = write(tmp_path / "1.json", [rec("test_a", "pass")], shard="1/2",
                selection=selection(["test_a"], shard="1/2"), **header)
    two = write(tmp_path / "2.json", [rec("test_b", "pass")], shard="2/2",
                selection=selection(["test_b"], shard="2/2"), **header)
    [run] = load([one, two])
    assert run.selected == {"test_a", "test_b"} and problems([run]) == []


# ---- against a baseline ----------------------------------------------------------------------------------------

def test_the_baseline_view_says_what_is_new_known_and_fixed(tmp_path):
    backend = {"name": "ort", "version": "2", "settings": {}}
    items = {"test_known[0]": {"verdict": "fail", "content": "k"}, "test_worse[0]": {"verdict": "pass", "content": "w"},
             "test_fixed[0]": {"verdict": "fail", "content": "f"}, "test_changed[0]": {"verdict": "fail", "content": "old"},
             "test_not_run[0]": {"verdict": "fail", "content": "n"}}
    base = tmp_path / "ort.baseline.json"
    base.write_text(baseline_text({"name": "ort", "version": "1", "settings": {}}, items))
    records = [rec("test_known", "fail", content="k"), rec("test_worse", "fail", content="w"),
               rec("test_fixed", "pass", content="f"), rec("test_changed", "fail", content="new"),
               rec("test_brand_new", "fail", content="b"), rec("test_ok", "pass", content="o")]
    results = write(tmp_path / "r.json", records, backend)
    [view] = build(load([results]), baselines=[base])["baseline"]
    assert sorted((r["case"], r["was"]) for r in view["new"]) == [("test_brand_new", "new case"),
                                                                  ("test_changed", "changed case"),
                                                                  ("test_worse", "pass")]
    assert [r["case"] for r in view["known"]] == ["test_known"]
    assert view["fixed"] == [{"item": "test_fixed[0]", "was": "fail", "now": "pass"}] and view["not_run"] == 1
    html = render(load([results]), baselines=[base])
    assert html.index("Against the baseline") < html.index("Scoreboard")
    assert '<td class="num new">3</td>' in html and "test_worse[0]</code> (baseline: pass)" in html
    md = render(load([results]), "md", baselines=[base])
    assert f"| ort 2 | `{base}` | 3 | 3 | 0 | 0 | 1 | 1 | 0 | 1 |" in md


def run_cli(*args):
    return opconform(*args)  # in this process (tests/cli_in_process.py)


def test_a_baseline_of_another_backend_or_no_baseline_is_one_line(tmp_path):
    results = write(tmp_path / "r.json", [rec("test_a", "fail")])
    other = tmp_path / "ov.baseline.json"
    other.write_text(baseline_text({"name": "openvino", "settings": {}}, {}))
    bogus = tmp_path / "bogus.json"
    bogus.write_text(json.dumps({"format": "opconform-baseline/2", "backend": {"name": "ort"}, "items": {"x": 1}}))
    for path, text in ((other, "recorded for backend openvino"), (bogus, "not a baseline file"),
                       (tmp_path / "none.json", "no such")):
        r = run_cli("report", str(results), "--baseline", str(path))
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and text in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
