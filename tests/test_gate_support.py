"""The gate keeps support as a verdict: pass -> unsupported is lost support (a regression), failing ->
unsupported is "now refused" (never "better"), a baseline item the run's selection holds but the run did not
judge has vanished (the gate fails, naming it), a run that judged nothing is not green, and the gate and the
report's baseline view are one judgement: the same counts and items on a run with every transition."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copied_suite

from runners.gate_judge import (BETTER, KNOWN, LOST, NEW, REFUSED, SAME, WORSE, Scope, Tally, classify,
                                judge_item)

pytest_plugins = ["pytester"]
importlib.import_module("runners.backends.opconform")  # onnx's C extension: loaded once (tests/test_gate.py)

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent / "cases"
FIXTURE = "fixture_backends:Misbehaving"
PICKS = sorted(p.name for p in (SUITE / "node").iterdir())[:14]
BEHAVIOURS = ("RAISE", "WRONG_DTYPE", "UNSUPPORTED")


@pytest.mark.parametrize("was, now, cls", [
    ("pass", "pass", SAME), ("pass", "probe", SAME), ("pass", "unsupported", LOST), ("probe", "unsupported", LOST),
    ("pass", "fail", WORSE), ("unsupported", "fail", WORSE), ("fail", "crash", WORSE),
    ("fail", "unsupported", REFUSED), ("crash", "unsupported", REFUSED), ("invalid-case", "unsupported", REFUSED),
    ("fail", "pass", BETTER), ("crash", "fail", BETTER), ("unsupported", "pass", BETTER),
    ("fail", "fail", KNOWN), ("unsupported", "unsupported", SAME),
    (None, "fail", NEW), (None, "pass", SAME), (None, "unsupported", SAME), ("pass", "skipped", SAME),
])
def test_every_transition_has_one_class(was, now, cls):
    assert classify(now, was) == cls


def test_a_vanished_item_is_one_the_selection_holds(tmp_path):
    items = {"a[0]": {"verdict": "pass", "content": None, "family": "cast"},
             "a[1]": {"verdict": "fail", "content": None, "family": "cast"},
             "b[0]": {"verdict": "pass", "content": None, "family": "layout"},
             "u[0]": {"verdict": "unsupported", "content": None, "family": "cast"}}
    baseline = {"items": items}
    tally = Tally(baseline)
    tally.count("a[0]", SAME, "pass", "pass")
    tally.finish(Scope(whole=True))
    assert tally.vanished == [("a[1]", "its data set is gone"), ("b[0]", "its case is not in the run")]
    assert tally.failed and tally.vanished_by_family() == ["cast: 1 item(s) (a[1])",
                                                           "layout: 1 item(s) (every item of the family the "
                                                           "baseline judged)"]
    tally.finish(Scope(whole=True, families=frozenset({"cast"})))
    assert tally.vanished == [("a[1]", "its data set is gone")]  # layout is not selected
    tally.finish(Scope(whole=False))
    assert tally.vanished == [("a[1]", "its data set is gone")]  # a case collected keeps its data sets in scope
    assert judge_item(baseline, "a[0]", "unsupported", None) == (LOST, "pass")
    assert judge_item(baseline, "z[0]", "fail", None) == (NEW, "new")


# ---- through both runners ---------------------------------------------------------------------------------

@pytest.fixture
def suite(pytester, monkeypatch) -> Path:
    """A suite of PICKS with a manifest (whole-suite runs: the gate expects every baseline item)."""
    return copied_suite(pytester, monkeypatch, PICKS)


def write_manifest(root: Path, names, fmt="opconform-suite/1") -> None:
    (root / "manifest.json").write_text(json.dumps({"format": fmt, "cases": [{"name": n, "kind": "node"}
                                                                             for n in names]}))


def env_for(**misbehave) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent)]))
    for what in BEHAVIOURS:
        env[f"OPCONFORM_TEST_{what}"] = ",".join(misbehave.get(what.lower(), []))
    return env


def opconform_run(cwd: Path, suite: Path, *args, **misbehave) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runners.cli", "run", str(suite), "--backend", FIXTURE, "-j", "1",
                           *args], cwd=cwd, capture_output=True, text=True, env=env_for(**misbehave))


@pytest.fixture
def runners(pytester, monkeypatch) -> dict:
    """Both runners on a suite, the fixture backend misbehaving as told: `opconform run` as a command, pytest with
    the plugin in this process (pytester; an interpreter start fewer per run, the workers are processes of
    their own either way)."""
    def pytest_run(cwd: Path, suite: Path, *args, **misbehave) -> subprocess.CompletedProcess:
        for key in ("PYTHONPATH", *(f"OPCONFORM_TEST_{what}" for what in BEHAVIOURS)):
            monkeypatch.setenv(key, env_for(**misbehave)[key])
        monkeypatch.chdir(cwd)
        result = pytester.runpytest(str(suite), "--backend", FIXTURE, "-p", "no:cacheprovider", "-q", *args)
        return subprocess.CompletedProcess(["pytest", str(suite), *args], int(result.ret),
                                           "\n".join(result.outlines) + "\n", "\n".join(result.errlines) + "\n")

    return {"pytest": pytest_run, "opconform-run": opconform_run}


def gate_items(stdout: str) -> dict[str, set[str]]:
    """The items each kind of line of the gate's summary names."""
    kinds = {"REGRESSION": "regression", "LOST": LOST, "better": BETTER, "refused": REFUSED}
    out: dict[str, set[str]] = {k: set() for k in kinds.values()}
    for line in stdout.splitlines():
        m = re.match(r"\s+(REGRESSION|LOST|better|refused)\s+(\S+?\[\d+\])", line)
        if m:
            out[kinds[m.group(1)]].add(m.group(2))
    return out


@pytest.mark.parametrize("kind", ["pytest", "opconform-run"])
def test_the_gate_and_the_report_judge_every_transition_alike(pytester, suite, runners, kind):
    runner = runners[kind]
    p = PICKS
    base = pytester.path / "b.baseline.json"
    # the baseline: p0..p2 pass, p3 / p4 / p9 fail, p5 errors, p6 unsupported, p7 / p8 pass
    r = runner(pytester.path, suite, "--baseline", str(base), "--update-baseline",
               wrong_dtype=[p[3], p[4], p[9]], **{"raise": [p[5]]}, unsupported=[p[6], p[12]])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "opconform: baseline written to" in r.stdout
    # now: p0 lost support, p3 now refused, p4 fixed, p1 worse, p5 milder (error -> fail: better, still failing),
    # p6 implemented, p9 known, p12 still unsupported; p7 skipped by a skips file and p8 gone from the suite
    # (both vanished); a new failing case p13 (new to the baseline once its entry is dropped)
    doc = json.loads(base.read_text())
    del doc["items"][f"{p[13]}[0]"]
    base.write_text(json.dumps(doc))
    shutil.rmtree(suite / "node" / p[8])
    write_manifest(suite, [n for n in p if n != p[8]])
    skips = pytester.path / "skips.txt"
    skips.write_text(f"{p[7]}\n")
    report = pytester.path / "r.json"
    r = runner(pytester.path, suite, "--baseline", str(base), "--report", str(report), "--skips-file", str(skips),
               unsupported=[p[0], p[3], p[12]], wrong_dtype=[p[1], p[5], p[9], p[13]])
    assert r.returncode == 1, r.stdout + r.stderr
    head = next(line for line in r.stdout.splitlines() if line.startswith("opconform gate:"))
    assert head.startswith(f"opconform gate: 3 regression(s) against {base} (2 worse or new failure(s), "
                           "1 lost support), 2 vanished, 3 item(s) better than the baseline, 1 now refused"), head
    named = gate_items(r.stdout)
    assert named == {"regression": {f"{p[1]}[0]", f"{p[13]}[0]"}, LOST: {f"{p[0]}[0]"},
                     BETTER: {f"{p[4]}[0]", f"{p[5]}[0]", f"{p[6]}[0]"}, REFUSED: {f"{p[3]}[0]"}}
    assert "lost support (baseline: pass): fixture backend: refused on purpose" in r.stdout
    assert "VANISHED   2 item(s)" in r.stdout and f"cast: 2 item(s) ({p[7]}[0], {p[8]}[0])" in r.stdout
    assert "(--update-baseline would record 3 improvement(s), 2 failure(s) as known, 1 item(s) as unsupported " \
           "(lost support), 1 failing item(s) as unsupported (now refused: no longer judged), the 2 vanished item(s) " \
           "dropped)" in r.stdout

    # the report's baseline view: the same judgement, item for item
    from runners.report import build
    from runners.report_inputs import load

    [view] = build(load([report]), baselines=[base])["baseline"]
    assert {r["case"] + "[0]" for r in view["new"]} == named["regression"]
    assert {x["item"] for x in view["lost"]} == named[LOST]
    assert {x["item"] for x in view["fixed"]} == named[BETTER]
    assert {x["item"] for x in view["refused"]} == named[REFUSED]
    assert [r["case"] for r in view["known"]] == [p[9]]
    assert view["counts"]["vanished"] == 2 and view["regressions"] == 3 and view["failed"]
    assert view["vanished"] == [f"cast: 2 item(s) ({p[7]}[0], {p[8]}[0])"]

    # the update records what the summary said it would, and drops the vanished items
    r = runner(pytester.path, suite, "--baseline", str(base), "--update-baseline", "--skips-file", str(skips),
               unsupported=[p[0], p[3], p[12]], wrong_dtype=[p[1], p[5], p[9], p[13]])
    assert "recorded 3 improvement(s), 2 failure(s) as known, 1 item(s) as unsupported (lost support), 1 failing " \
           "item(s) as unsupported (now refused: no longer judged), the 2 vanished item(s) dropped" in r.stdout
    items = json.loads(base.read_text())["items"]
    assert f"{p[7]}[0]" not in items and f"{p[8]}[0]" not in items and items[f"{p[0]}[0]"]["verdict"] == "unsupported"
    assert items[f"{p[0]}[0]"]["family"] == "cast"
    r = runner(pytester.path, suite, "--baseline", str(base), "--skips-file", str(skips),
               unsupported=[p[0], p[3], p[12]], wrong_dtype=[p[1], p[5], p[9], p[13]])
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_backend_that_refuses_everything_fails_the_gate(pytester, suite):
    runner = opconform_run  # (the plugin's lost-support failures: the transitions test above)
    base = pytester.path / "b.baseline.json"
    assert runner(pytester.path, suite, "--baseline", str(base), "--update-baseline").returncode == 0
    r = runner(pytester.path, suite, "--baseline", str(base), unsupported=PICKS)
    assert r.returncode == 1, r.stdout
    assert f"opconform gate: {len(PICKS)} regression(s)" in r.stdout and f"{len(PICKS)} lost support" in r.stdout
    assert "item(s) better" in r.stdout and "0 item(s) better" in r.stdout


@pytest.mark.parametrize("kind", ["pytest", "opconform-run"])
def test_a_run_that_judged_nothing_is_not_green(pytester, suite, runners, kind):
    runner = runners[kind]
    r = runner(pytester.path, suite, unsupported=PICKS)
    assert r.returncode == 5, r.stdout + r.stderr
    assert f"opconform: nothing judged: of {len(PICKS)} selected item(s), {len(PICKS)} unsupported (exit 5)" \
        in r.stdout
    r = runner(pytester.path, suite, unsupported=PICKS[1:])
    assert r.returncode == 0 and f"opconform: 1 of {len(PICKS)} selected item(s) judged" in r.stdout


def test_a_baseline_family_that_vanished_is_named(pytester, suite):
    base = pytester.path / "b.baseline.json"
    assert opconform_run(pytester.path, suite, "--baseline", str(base), "--update-baseline").returncode == 0
    r = opconform_run(pytester.path, suite, "--baseline", str(base), "--family", "cast")
    assert r.returncode == 0, r.stdout  # the family ran whole
    r = opconform_run(pytester.path, suite, "--baseline", str(base), "--family", "layout")
    assert r.returncode == 5 and "cast" not in r.stdout.split("VANISHED")[-1]  # cast is not selected: not vanished
    for name in PICKS:
        shutil.rmtree(suite / "node" / name)
    write_manifest(suite, [])
    r = opconform_run(pytester.path, suite, "--baseline", str(base))
    assert r.returncode != 0
    assert f"cast: {len(PICKS)} item(s) (every item of the family the baseline judged)" in r.stdout
