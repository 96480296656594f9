"""gen-cases: determinism, --check, atomic replacement, refusal of foreign directories, bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator import cli
from generator.families import FAMILIES
from generator.serialize import read_manifest

QUICK = ["--profile", "quick", "--max-opset", "19"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def quick_suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "suite"
    assert cli.main([str(out), *QUICK]) == 0
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_generations_are_byte_identical(quick_suite, tmp_path):
    again = tmp_path / "again"
    assert cli.main([str(again), *QUICK]) == 0
    assert _files(again) == _files(quick_suite)


def test_seed_changes_only_random_data(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    args = ["--max-opset", "13"]
    assert cli.main([str(a), *args, "--seed", "1"]) == 0
    assert cli.main([str(b), *args, "--seed", "2"]) == 0
    fa, fb = _files(a), _files(b)
    # data only: every case.json records the seed it was made with
    changed = {p.split("/")[1] for p in fa if p in fb and fa[p] != fb[p] and p.endswith(".pb")}
    # random strings beyond float64's range join the extreme_exponent case
    assert changed and all(name.endswith(("_random", "_probe", "_extreme_exponent")) for name in changed), sorted(changed)[:5]


def test_check_passes_on_identical_and_names_a_changed_file(quick_suite, capsys):
    assert cli.main([str(quick_suite), "--check", *QUICK]) == 0
    target = next(quick_suite.glob("node/*/test_data_set_0/output_0.pb"))
    original = target.read_bytes()
    try:
        data = bytearray(original)
        data[-1] ^= 0x01
        target.write_bytes(bytes(data))
        capsys.readouterr()
        assert cli.main([str(quick_suite), "--check", *QUICK]) == 1
        out = capsys.readouterr().out
        assert f"{target}: differs" in out
    finally:
        target.write_bytes(original)


def test_check_reports_missing_and_unexpected_files(quick_suite, capsys):
    extra = quick_suite / "node" / "stray.txt"
    extra.write_text("x")
    try:
        assert cli.main([str(quick_suite), "--check", *QUICK]) == 1
        assert f"{extra}: unexpected" in capsys.readouterr().out
    finally:
        extra.unlink()


def test_manifest_lists_cases_with_params(quick_suite):
    manifest = read_manifest(quick_suite)
    assert manifest["options"] == {"families": sorted(FAMILIES), "profile": "quick", "seed": 0, "max_opset": 19}
    names = [c["name"] for c in manifest["cases"]]
    assert len(names) == len(set(names)) == sum(manifest["counts"].values())
    on_disk = {p.parent.name for p in quick_suite.glob("*/*/case.json")}
    assert set(names) == on_disk
    assert all("from" in c["params"] and "to" in c["params"] for c in manifest["cases"] if c["family"] == "cast")


def test_regeneration_replaces_the_old_suite_whole(tmp_path):
    out = tmp_path / "suite"
    assert cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", "13"]) == 0
    stale = out / "node" / "test_cast_stale"
    stale.mkdir()
    assert cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", "13"]) == 0
    assert not stale.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "temporary directories left behind"


def test_refuses_a_non_empty_directory_that_is_not_a_suite(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not lose me")
    r = run(str(precious), "--profile", "quick")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not an opconform suite" in r.stderr
    assert (precious / "thesis.tex").read_text() == "do not lose me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_failure_during_generation_leaves_the_old_suite(tmp_path, monkeypatch):
    out = tmp_path / "suite"
    assert cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", "13"]) == 0
    before = _files(out)

    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli, "write_manifest", boom)
    with pytest.raises(RuntimeError):
        cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", "13"])
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]


@pytest.mark.parametrize("args, needle", [
    (["--profile", "huge"], "invalid choice"),
    (["--family", "nope"], "invalid choice"),
    (["--seed", "abc"], "invalid int value"),
    (["--max-opset", "0"], "--max-opset"),
    (["--bogus"], "unrecognized arguments"),
])
def test_bad_options_give_one_line_and_exit_2(tmp_path, args, needle):
    r = run(str(tmp_path / "s"), *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "s").exists()


def test_check_of_a_directory_that_is_not_a_suite(tmp_path):
    r = run(str(tmp_path), "--check")
    assert r.returncode == 2 and "not an opconform suite" in r.stderr


def test_out_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    r = run(str(f))
    assert r.returncode == 2 and "not a directory" in r.stderr and f.read_text() == "x"


def test_max_opset_leaves_out_newer_cases(quick_suite):
    manifest = read_manifest(quick_suite)
    assert max(c["opset"] for c in manifest["cases"]) <= 19
    types = {c["params"]["to"] for c in manifest["cases"] if c["family"] == "cast"}
    assert "float8e4m3fn" in types and "int4" not in types and "float8e8m0" not in types
    case_json = json.loads(next(quick_suite.glob("node/*/case.json")).read_text())
    assert case_json["opset"] <= 19
