"""opconform hunt (runners/hunt.py): it finds what deliberately broken backends get wrong, shrinks it, writes a
suite that reproduces it and that the reference passes; it finds nothing against opconform itself; it keeps
undefined inputs out of the findings; its options, exit codes and --keep."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from generator import families, witness
from generator.serialize import read_case, read_manifest
from runners import hunt, hunt_findings
from runners.backends.opconform import OpconformBackend
from runners.backends.registry import get_backend
from runners.cli import main
from runners.execute import run_case_dataset
from runners.results import FAIL, PASS

HERE = Path(__file__).resolve().parent
pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _broken_backends_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))  # hunt_backends, for this process and spawned workers
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))


def run_hunt(capsys, out: Path, backend: str, *args: str, isolation: str = "none") -> tuple[int, str]:
    rc = main(["hunt", "--backend", backend, "--out", str(out), "--isolation", isolation, *args])
    captured = capsys.readouterr()
    return rc, captured.err


# one hunt that several tests read (a finding costs seconds of shrinking): run once per module, by its arguments
ROUND_HALF_AWAY = ("fault:cast.round_half_away", "--family", "cast", "--only", "float*_to_float8*", "--max-examples",
                   "100")


@pytest.fixture(scope="module")
def hunted(tmp_path_factory):
    """hunted(capsys, backend, *args) -> (rc, err, out): the hunt of these arguments, run at the first call of the
    module; the tests only read its suite (one that writes there copies it first)."""
    done: dict[tuple, tuple[int, str, Path]] = {}

    def hunt_once(capsys, backend: str, *args: str) -> tuple[int, str, Path]:
        if (backend, *args) not in done:
            out = tmp_path_factory.mktemp("hunted") / "found"
            done[(backend, *args)] = (*run_hunt(capsys, out, backend, *args), out)
        return done[(backend, *args)]

    return hunt_once


def cases_of(suite: Path) -> list[Path]:
    return sorted(p for kind in ("node", "graph", "negative", "probe") for p in (suite / kind).glob("*"))


def verdicts(suite: Path, backend: str) -> dict[str, str]:
    b = get_backend(backend)
    return {p.name: run_case_dataset(b, read_case(p), 0, "strict", {}).verdict for p in cases_of(suite)}


# ---------------------------------------------------------------------------------------
# broken backends are found, shrunk, and written as reproducers
# ---------------------------------------------------------------------------------------
BROKEN = [
    # (backend, family, --only, --max-examples, what the finding's signature names); the examples each needs
    # (seed 0) to find it: 100 for the rounding (6 findings, ROUND_HALF_AWAY's hunt), 50 for the attribute
    # (5 findings), 300 for the off-by-one (none at 100)
    ("fault:cast.round_half_away", "cast", "float*_to_float8*", "100", "cast.round_half_away"),  # a wrong rounding
    ("fault:cast.saturate_ignored", "cast", "float*_to_float8e5m2", "50", "cast.saturate_ignored"),  # an ignored attribute
    ("hunt_backends:CastTopOffByOne", "cast", "float*_to_*int*", "300", "off by -1"),  # a bug no fault model has
]


@pytest.mark.parametrize("backend,family,only,examples,named", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_backend_is_found_and_its_reproducer_fails_only_there(capsys, hunted, backend, family, only,
                                                                       examples, named):
    rc, err, out = hunted(capsys, backend, "--family", family, "--only", only, "--max-examples", examples)
    assert rc == 1, err
    manifest = read_manifest(out)
    assert manifest["options"]["hunt"]["families"] == [family]
    judged = [p for p in cases_of(out) if p.parent.name != "probe"]
    assert judged, err
    metas = [json.loads((p / "case.json").read_text()) for p in judged]
    assert any(named in m["hunt"]["signature"] for m in metas), [m["hunt"]["signature"] for m in metas]
    for m in metas:
        assert m["hunt"]["backend"] == get_backend(backend).name and m["hunt"]["seed"] == 0
        assert m["hunt"]["verdict"] == FAIL and "hunt" in m["flags"]
    on_broken, on_reference = verdicts(out, backend), verdicts(out, "opconform")
    assert {on_broken[p.name] for p in judged} == {FAIL}
    assert set(on_reference.values()) <= {PASS, "probe"}
    if family == "cast":  # Cast is element-wise: a finding shrinks to one element
        assert all(read_case(p).inputs[0][0].size == 1 for p in judged)


def test_pytest_reproduces_the_findings_and_the_reference_passes(capsys, hunted, pytester):
    rc, _, out = hunted(capsys, *ROUND_HALF_AWAY)
    assert rc == 1
    args = [str(out), "-q", "-p", "no:cacheprovider", "--backend"]
    broken = pytester.runpytest(*args, "fault:cast.round_half_away")  # in this process: no interpreter to start
    assert broken.ret == 1 and "consistent with" in broken.stdout.str(), broken.stdout.str()[-2000:]
    reference = pytester.runpytest(*args, "opconform")
    assert reference.ret == 0, reference.stdout.str()[-2000:]


def test_a_crash_in_the_worker_is_a_finding(capsys, tmp_path):
    out = tmp_path / "found"
    rc, err = run_hunt(capsys, out, "hunt_backends:SegfaultsOnNegative", "--family", "cast", "--only",
                       "float32_to_bool", "--max-examples", "2", isolation="process")
    assert rc == 1, err
    metas = [json.loads((p / "case.json").read_text()) for p in cases_of(out) if p.parent.name == "node"]
    assert metas and {m["hunt"]["verdict"] for m in metas} == {"crash"}
    assert all("SIGSEGV" in m["hunt"]["signature"] for m in metas)
    # shrunk (each step that still crashes restarts the worker: a few are taken, hunt_search.COSTLY)
    assert all(0 < m["hunt"]["shrink_steps"] for m in metas)
    x = read_case(out / "node" / metas[0]["name"]).inputs[0][0]
    assert np.signbit(x).any()


def test_undefined_inputs_are_never_findings_but_are_kept_as_probes(capsys, tmp_path):
    out = tmp_path / "found"
    rc, err = run_hunt(capsys, out, "hunt_backends:GarbageWhereUndefined", "--family", "cast", "--only",
                       "float*_to_*int*", "--max-examples", "300")
    assert rc == 0, err
    probes = [json.loads((p / "case.json").read_text()) for p in (out / "probe").glob("*")]
    assert not list((out / "node").glob("*"))
    # the garbage was recorded where float -> integer is out of range: what other backends are compared with
    garbage = [p for p in probes if any(90 in (o.get("values") or []) for o in p["hunt"]["observed"] or [])]
    assert garbage and all(p["undefined"] for p in garbage)


def test_against_opconform_itself_it_finds_nothing(capsys, tmp_path):
    """Every family (the default) 50 examples: each slice gets its turn but Cast's 910 and CastLike's 792 (each
    strategy's draws pass on opconform in tests/test_hunt_<family>.py and the family tests too); those two get
    100 more, at another seed (other slices first)."""
    runs = [(["--max-examples", "50"], hunt.huntable(), 50),
            (["--family", "cast", "--family", "cast_like", "--max-examples", "100", "--seed", "1"],
             ["cast", "cast_like"], 100)]
    for i, (args, hunted_families, examples) in enumerate(runs):
        out = tmp_path / f"found{i}"
        rc, err = run_hunt(capsys, out, "opconform", *args)
        assert rc == 0, err
        assert not [p for p in cases_of(out) if p.parent.name != "probe"]
        ran = {m[1]: int(m[2]) for m in re.finditer(r"^hunt (\w+): (\d+) examples in", err, re.M)}
        assert set(ran) == set(hunted_families) and min(ran.values()) >= examples, ran  # one more where a
        # slice's first example, hypothesis' simplest, came outside its turn


def test_the_same_seed_finds_the_same(capsys, hunted, tmp_path):
    """ROUND_HALF_AWAY's hunt (seed 0, the default) against the same hunt run again with --seed 0."""
    def found(rc: int, out: Path) -> list[tuple[str, bytes]]:
        assert rc == 1
        return [(p.name, read_case(p).inputs[0][0].tobytes()) for p in cases_of(out)]

    first = hunted(capsys, *ROUND_HALF_AWAY)
    again = tmp_path / "again"
    assert found(first[0], first[2]) == found(run_hunt(capsys, again, *ROUND_HALF_AWAY, "--seed", "0")[0], again)


def test_the_database_keeps_examples_for_replay(capsys, tmp_path):
    db = tmp_path / "db"
    rc, _ = run_hunt(capsys, tmp_path / "a", "fault:cast.round_half_away", "--family", "cast", "--only",
                     "float16_to_float8*", "--max-examples", "100", "--database", str(db))
    assert rc == 1 and any(db.rglob("*"))
    # the replay comes first: the next run finds them again with no more examples than it needs
    rc, err = run_hunt(capsys, tmp_path / "b", "fault:cast.round_half_away", "--family", "cast", "--only",
                       "float16_to_float8*", "--max-examples", "8", "--database", str(db))
    assert rc == 1, err


def test_progress_in_a_log_and_the_summary(tmp_path):
    progress = io.StringIO()
    plan = hunt.Plan(backend="fault:cast.saturate_ignored", options={}, families=["cast"], max_examples=60,
                     budget=None, seed=0, tier="strict", max_opset=hunt_newest(), database=None,
                     only=["float32_to_float8e4m3fn"])
    rc = hunt.run(plan, tmp_path / "out", False, 60.0, None, stream=progress, isolation="none")
    text = progress.getvalue()
    assert rc == 1
    assert "hunt cast: 1 of 60 examples" in text and "/s" in text  # the first line comes at once
    assert "hunt cast: finding 1:" in text and "hunt cast: 60 examples in" in text
    assert "\r" not in text  # not a terminal: lines, not a redrawn one


def hunt_newest() -> int:
    import onnx

    return onnx.defs.onnx_opset_version()


# ---------------------------------------------------------------------------------------
# --keep: findings become regression cases of gen-cases
# ---------------------------------------------------------------------------------------
def test_kept_findings_are_rebuilt_by_gen_cases_from_the_reference(capsys, tmp_path, monkeypatch):
    catalogue = tmp_path / "catalogue"
    shutil.copytree(witness.CATALOGUE_DIR, catalogue)
    monkeypatch.setattr(witness, "CATALOGUE_DIR", catalogue)
    before = witness.load("cast").get("hunted") or []  # the committed catalogue's reviewed findings
    out = tmp_path / "found"
    rc, err = run_hunt(capsys, out, "fault:cast.round_half_away", "--family", "cast", "--only", "float*_to_float8*",
                       "--max-examples", "50", "--keep")  # 2 findings
    assert rc == 1 and "added to" in err
    kept = witness.load("cast")["hunted"]
    assert all(entry in kept for entry in before)  # nothing committed lost
    node = [p for p in cases_of(out) if p.parent.name == "node"]
    assert len(kept) - len(before) == len(node) > 0
    rebuilt = [c for c in witness.hunted_cases("cast", families.load("cast"), hunt_newest())
               if c.meta["hunted"]["backend"] == "fault:cast.round_half_away"]
    assert sorted(c.inputs[0][0].tobytes() for c in rebuilt if c.kind == "node") == \
        sorted(read_case(p).inputs[0][0].tobytes() for p in node)
    assert all("hunted" in c.meta["flags"] for c in rebuilt)
    # kept twice: nothing new
    rc, err = run_hunt(capsys, tmp_path / "again", "fault:cast.round_half_away", "--family", "cast", "--only",
                       "float*_to_float8*", "--max-examples", "50", "--keep")
    assert len(witness.load("cast")["hunted"]) == len(kept)


def test_the_committed_catalogue_has_no_unreviewed_findings():
    """--keep writes to the source checkout; what is committed there has a backend, a verdict and args that
    rebuild (a finding nobody reviewed would have no place in a catalogue)."""
    for family in families.FAMILIES:
        for entry in witness.load(family).get("hunted") or []:
            assert set(entry) == {"name", "group", "args", "found"}
            assert entry["found"]["backend"] and entry["found"]["verdict"]


# ---------------------------------------------------------------------------------------
# usage
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,says", [
    (["--family", "nonsense"], "not a family with a hunt strategy"),
    (["--max-examples", "0"], "--max-examples must be at least 1"),
    (["--budget", "-1"], "--budget must be a positive number"),
    (["--budget", "inf"], "--budget must be a positive number"),
    (["--case-timeout", "inf"], "--case-timeout inf"),
    (["--case-memory", "4"], "--case-memory 4"),
    (["--max-opset", "999"], "--max-opset 999"),
    (["--backend-option", "novalue"], "expected KEY=VALUE"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, tmp_path, argv, says):
    rc = main(["hunt", "--backend", "opconform", "--out", str(tmp_path / "o"), *argv])
    err = capsys.readouterr().err
    assert rc == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_a_bad_backend_or_target_is_refused_before_the_search(capsys, tmp_path):
    rc = main(["hunt", "--backend", "no-such-backend", "--out", str(tmp_path / "o")])
    assert rc == 2 and "no-such-backend" in capsys.readouterr().err
    rc = main(["hunt", "--backend", "opconform", "--backend-option", "k=v", "--out", str(tmp_path / "o")])
    assert rc == 2 and "k" in capsys.readouterr().err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    rc = main(["hunt", "--backend", "opconform", "--out", str(mine)])
    err = capsys.readouterr().err
    assert rc == 2 and "not a suite written by opconform hunt" in err
    assert (mine / "notes.txt").read_text() == "keep me"
    rc = main(["hunt", "--backend", "opconform", "--out", str(mine / "notes.txt")])
    assert rc == 2 and "not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["empty", "earlier hunt", "dangling"])
def test_an_out_that_is_a_symbolic_link_is_refused_and_its_target_untouched(capsys, tmp_path, target):
    """--out through a link replaced the link's target (a directory the user did not name), an earlier hunt's
    suite there included: refused in one line before the search, whatever the link points to."""
    there = tmp_path / "there"
    if target == "earlier hunt":
        assert run_hunt(capsys, there, "opconform", "--family", "cast", "--max-examples", "20")[0] == 0
    elif target == "empty":
        there.mkdir()
    before = sorted(p.relative_to(there) for p in there.rglob("*")) if there.exists() else None
    link = tmp_path / "found"
    link.symlink_to(there)
    rc, err = run_hunt(capsys, link, "opconform", "--family", "cast", "--max-examples", "20")
    assert rc == 2 and f"--out {link}: a symbolic link" in err and len(err.strip().splitlines()) == 1, err
    assert link.is_symlink()
    assert (sorted(p.relative_to(there) for p in there.rglob("*")) if there.exists() else None) == before


class LinksOut(OpconformBackend):
    """Replaces the hunt's (not yet written) --out with a link to $OPCONFORM_TEST_LINK_TO while the search runs."""

    name = "links-out"

    def prepare(self, model, case):
        out, to = os.environ["OPCONFORM_TEST_OUT"], os.environ["OPCONFORM_TEST_LINK_TO"]
        if not os.path.islink(out):
            os.symlink(to, out)
        return super().prepare(model, case)


def test_an_out_made_a_link_during_the_search_is_not_written_through(capsys, tmp_path, monkeypatch):
    out, there = tmp_path / "found", tmp_path / "there"
    there.mkdir()
    (there / "notes.txt").write_text("keep me")
    monkeypatch.setenv("OPCONFORM_TEST_OUT", str(out))
    monkeypatch.setenv("OPCONFORM_TEST_LINK_TO", str(there))
    rc, err = run_hunt(capsys, out, "test_hunt:LinksOut", "--family", "cast", "--max-examples", "5")
    assert rc == 2 and f"--out {out}: a symbolic link" in err, err
    assert sorted(p.name for p in there.iterdir()) == ["notes.txt"]


def test_an_earlier_hunt_is_replaced_and_gen_cases_will_not_check_it(capsys, hunted, tmp_path):
    out = tmp_path / "found"
    rc, _, earlier = hunted(capsys, *ROUND_HALF_AWAY)
    assert rc == 1
    shutil.copytree(earlier, out, symlinks=True)  # an earlier hunt's suite, with findings
    assert list((out / "node").glob("*"))
    assert run_hunt(capsys, out, "opconform", "--family", "cast", "--max-examples", "50")[0] == 0
    assert not list((out / "node").glob("*"))
    from generator.cli import main as gen_cases

    assert gen_cases(["--check", str(out)]) == 2
    assert "written by opconform hunt" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# telling findings apart
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("expected,actual,cls", [
    (2.0, 3.5, "larger magnitude"),
    (3, 2, "off by -1"),
    (254, 255, "off by +1"),
    ("nan", 1.0, "NaN expected, a number returned"),
    (1.0, "nan", "NaN returned for a number"),
    ("inf", 65504.0, "infinity expected, finite returned"),
    (0.0, -0.0, "the sign of zero"),
    (1e-40, 0.0, "zero returned"),
    (-2.0, 2.0, "the sign"),
])
def test_mismatch_classes(expected, actual, cls):
    assert hunt_findings.mismatch_class({"expected": expected, "actual": actual}) == cls


def test_diagnoses_that_share_a_fault_are_one_finding():
    a, b = frozenset({"cast.round_half_away", "cast.round_half_up"}), frozenset({"cast.round_half_away"})
    assert hunt_findings.same_finding(a, b) and not hunt_findings.same_finding(a, frozenset({"cast.via_float"}))
    assert not hunt_findings.same_finding(a, "output: off by +1")
    assert hunt_findings.same_finding("timeout", "timeout")
    assert hunt_findings._blank("Node (n_17) 'Cast' failed at 0x7f3a: 12 of 40") == "Node (n_N) '…' failed at 0x…: N of N"
