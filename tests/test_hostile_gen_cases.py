"""gen-cases never deletes what it did not write (issue 19, item 9).

What a suite consists of in OUT: manifest.json, node/, graph/, negative/, probe/ and tables/ (suite_entry). Every other entry of OUT (a vendor's baseline, ci/notes.md, a link) is kept through a
regeneration, also by a run that dies after its commit (the next run carries it over), and --check leaves it out.
A regeneration that drops cases of the suite in OUT says how many, by kind and family; made with other options
than the suite's, it is refused (OUT untouched) unless --replace is given.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from test_gen_cases import SMALL, _dead_pid, _files, _hidden, _one_line, mount_point  # noqa: F401 (a fixture)

from generator import cli, suite_write
from generator.serialize import read_manifest
from generator.suite_entries import suite_entry

TWO = ["--family", "dynamic_quantize_linear", "--family", "layout", "--profile", "quick"]  # 23 + 60 cases


def _foreign(out: Path) -> dict[str, bytes]:
    """A vendor's own entries in OUT: a file, a folder with a file, a link, a hidden folder, and a name with a
    newline and an escape sequence in it."""
    (out / "baseline.json").write_text('{"expected_failures": ["test_x"]}')
    (out / "ci").mkdir()
    (out / "ci" / "notes.md").write_text("why we skip what we skip")
    (out / ".vendor").mkdir()
    (out / ".vendor" / "state").write_bytes(b"\x00\x01")
    (out / "odd\nname\x1b[2J").write_text("odd")
    (out / "link").symlink_to("ci/notes.md")
    return _vendor_files(out)


def _vendor_files(out: Path) -> dict[str, bytes]:
    files = {k: v for k, v in _files(out).items() if not suite_entry(k.split("/")[0])}
    files["link ->"] = os.readlink(out / "link").encode() if (out / "link").is_symlink() else b"gone"
    return files


def test_a_regeneration_keeps_every_entry_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL]) == 0
    suite = _files(out)
    mine = _foreign(out)
    capsys.readouterr()
    assert cli.main([str(out), *SMALL, "--seed", "4"]) == 0  # without the fix: every foreign entry deleted
    assert _vendor_files(out) == mine
    assert read_manifest(out)["options"]["seed"] == 4
    err = capsys.readouterr().err
    note = [line for line in err.splitlines() if "not part of the suite" in line]
    assert len(note) == 1 and "kept 5 entries" in note[0] and "baseline.json" in note[0] and "ci" in note[0]
    assert "\x1b" not in err and "odd\nname" not in err  # the odd name is shown escaped, on the note's line
    assert _hidden(tmp_path) == []
    # --check checks the suite and leaves the vendor's entries out (it named them "unexpected" before)
    assert cli.main([str(out), "--check"]) == 0
    assert "not checked" in capsys.readouterr().err
    assert cli.main([str(out), *SMALL]) == 0  # back to seed 0: the suite is what it was, the vendor's still there
    assert {k: v for k, v in _files(out).items() if suite_entry(k.split("/")[0])} == suite
    assert _vendor_files(out) == mine


@pytest.mark.parametrize("seen", [True, False], ids=["ismount", "bind_mount"])
def test_a_mount_point_keeps_every_entry_it_did_not_write(tmp_path, mount_point, seen):  # noqa: F811
    out = tmp_path / "mnt"
    assert cli.main([str(out), *SMALL]) == 0
    mine = _foreign(out)
    mount_point(out, seen)
    assert cli.main([str(out), *SMALL, "--seed", "2"]) == 0
    assert _vendor_files(out) == mine and read_manifest(out)["options"]["seed"] == 2
    assert _hidden(tmp_path) == [] and sorted(n for n in os.listdir(out) if n.startswith(".")) == [".vendor"]


def test_entries_a_dead_run_left_in_its_old_directory_are_carried_over_by_the_next(tmp_path):
    """Killed after its commit, before its old directory was emptied: the vendor's entries are in the
    leftover `.suite.old-<id>` (which the next run removed whole without the fix)."""
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL]) == 0
    mine = _foreign(out)
    stale = tmp_path / f".suite.old-{_dead_pid()}-dead0000"
    os.rename(out, stale)  # OUT moved aside, the new suite committed, then the run died
    assert cli.main([str(tmp_path / "fresh"), *SMALL]) == 0
    os.rename(tmp_path / "fresh", out)
    assert cli.main([str(out), *SMALL]) == 0
    assert _vendor_files(out) == mine
    assert _hidden(tmp_path) == []


def test_entries_an_older_inside_swap_moved_out_are_carried_back(tmp_path):
    """A mount point written by a gen-cases that moved every entry out (the vendor's too), killed after its
    commit: its `.OUT.prev-<id>` holds them; the next run carries them back instead of removing them."""
    out = tmp_path / "mnt"
    assert cli.main([str(out), *SMALL]) == 0
    prev = out / ".mnt.prev-1-aaaa"
    prev.mkdir()
    (prev / "baseline.json").write_text("mine")
    (prev / "node").mkdir()  # the old suite's, to go
    assert cli.main([str(out), *SMALL]) == 0
    assert (out / "baseline.json").read_text() == "mine" and not prev.exists()


def test_a_carry_that_fails_keeps_the_entry_for_the_next_run(tmp_path, monkeypatch, capsys):
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL]) == 0
    mine = _foreign(out)
    renamed = os.rename

    def rename(src, dst, **kw):
        if Path(dst) == out / "baseline.json":
            raise OSError(errno.EIO, "I/O error", str(src))
        return renamed(src, dst, **kw)

    monkeypatch.setattr(os, "rename", rename)
    assert cli.main([str(out), *SMALL, "--seed", "1"]) == 1
    assert "I/O error" in _one_line(capsys.readouterr().err)
    left = _hidden(tmp_path)
    assert len(left) == 1 and (tmp_path / left[0] / "baseline.json").read_bytes() == mine["baseline.json"]
    monkeypatch.setattr(os, "rename", renamed)
    assert cli.main([str(out), *SMALL, "--seed", "1"]) == 0
    assert _vendor_files(out) == mine and _hidden(tmp_path) == []


def test_an_entry_of_the_same_name_in_out_keeps_the_dead_runs_leftover(tmp_path):
    """A leftover whose foreign entry cannot be carried (OUT has one of that name by now) is kept, not removed."""
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL]) == 0
    (out / "baseline.json").write_text("the old one")
    stale = tmp_path / f".suite.old-{_dead_pid()}-dead0001"
    os.rename(out, stale)  # OUT moved aside, the new suite committed, then the run died
    assert cli.main([str(tmp_path / "fresh"), *SMALL]) == 0
    (tmp_path / "fresh" / "baseline.json").write_text("a new one")
    os.rename(tmp_path / "fresh", out)
    assert cli.main([str(out), *SMALL]) == 0
    assert (out / "baseline.json").read_text() == "a new one"
    assert (stale / "baseline.json").read_text() == "the old one"


def test_a_narrower_regeneration_is_refused_and_says_what_it_would_drop(tmp_path, capsys, monkeypatch):
    out = tmp_path / "suite"
    assert cli.main([str(out), *TWO]) == 0
    before = _files(out)
    capsys.readouterr()
    generate_into = suite_write.generate_into

    def not_now(*a, **k):
        raise AssertionError("the families left out were known before any generation")

    monkeypatch.setattr(suite_write, "generate_into", not_now)
    # without the fix: 83 cases silently replaced by 23
    assert cli.main([str(out), "--family", "dynamic_quantize_linear", "--profile", "quick"]) == 2
    monkeypatch.setattr(suite_write, "generate_into", generate_into)
    line = _one_line(capsys.readouterr().err)
    assert "holds a suite of 83 cases" in line and "would drop 60 of them" in line and "layout 60" in line
    assert "--replace" in line
    assert _files(out) == before and _hidden(tmp_path) == []
    assert cli.main([str(out), "--family", "dynamic_quantize_linear", "--profile", "quick", "--replace"]) == 0
    err = capsys.readouterr().err
    assert "60 cases of the suite that was in" in err and "layout 60" in err and "graph 60" in err
    assert read_manifest(out)["options"]["families"] == ["dynamic_quantize_linear"]


def test_a_smaller_profile_is_refused_once_its_cases_are_known(tmp_path, capsys):
    out = tmp_path / "suite"
    assert cli.main([str(out), "--family", "dynamic_quantize_linear"]) == 0
    before = _files(out)
    n = len(read_manifest(out)["cases"])
    capsys.readouterr()
    assert cli.main([str(out), *SMALL]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"holds a suite of {n} cases; this generation (23 cases) would drop {n - 23} of them" in line
    assert "profile default -> quick" in line
    assert _files(out) == before and _hidden(tmp_path) == []


def test_a_regeneration_with_the_same_options_that_drops_cases_says_how_many(tmp_path, capsys):
    """Same options, fewer cases (the generator changed): written, with a note of what is gone."""
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["cases"].append({"name": "test_dynamicquantizelinear_gone", "kind": "node",
                              "family": "dynamic_quantize_linear", "op": "DynamicQuantizeLinear"})
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert cli.main([str(out), *SMALL]) == 0
    err = capsys.readouterr().err
    assert "note: 1 cases of the suite that was in" in err and "node 1" in err and "dynamic_quantize_linear 1" in err
