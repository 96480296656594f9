"""gen-cases: determinism, --check, atomic replacement, refusal of foreign directories, bad options;
leftovers of dead runs, permissions, mount points and symlinks, empty selections, Ctrl-C at any point.

Generation costs CPU: most tests write the small dynamic_quantize_linear quick suite (17 cases) or test
generator.outdir on its own with a build that writes two files.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from generator import cli, families, outdir, serialize, suite_generation
from generator.families import FAMILIES
from generator.serialize import SUITE_FORMAT, read_manifest

QUICK = ["--profile", "quick", "--max-opset", "19"]
SMALL = ["--family", "dynamic_quantize_linear", "--profile", "quick"]  # 17 cases, about a second


def run(*args: str) -> subprocess.CompletedProcess:
    """gen-cases ARGS in this process (no interpreter to start): its exit status and what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return subprocess.CompletedProcess(["gen-cases", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def quick_suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "suite"
    assert cli.main([str(out), *QUICK]) == 0
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# Two generations are byte-identical: tests/test_sampling.py generates every family twice (once in a process
# where hypothesis cannot be imported) and compares every file; CI regenerates the committed suite whole
# (.ci/run: gen-cases --check cases, also with numpy's SIMD kernels off and under another hypothesis).


# --seed changes only random data: tests/test_sampling.py (with the generation it shares)


# --check's mechanics on the small suite; CI checks the committed suite whole (.ci/run: gen-cases --check cases)
def test_check_passes_on_identical_and_names_a_changed_file(small_suite, capsys):
    assert cli.main([str(small_suite), "--check"]) == 0
    target = next(small_suite.glob("node/*/test_data_set_0/output_0.pb"))
    original = target.read_bytes()
    try:
        data = bytearray(original)
        data[-1] ^= 0x01
        target.write_bytes(bytes(data))
        capsys.readouterr()
        assert cli.main([str(small_suite), "--check"]) == 1
        out = capsys.readouterr().out
        assert f"{target}: differs" in out
    finally:
        target.write_bytes(original)


def test_check_reports_missing_and_unexpected_files(small_suite, capsys):
    extra = small_suite / "node" / "stray.txt"
    extra.write_text("x")
    gone = next(small_suite.glob("node/*/case.json"))
    original = gone.read_bytes()
    gone.unlink()
    try:
        assert cli.main([str(small_suite), "--check"]) == 1
        out = capsys.readouterr().out
        assert f"{extra}: unexpected" in out and f"{gone}: missing" in out
    finally:
        extra.unlink()
        gone.write_bytes(original)


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

    monkeypatch.setattr(serialize, "write_manifest", boom)
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
    (["--find-witnesses", "--budget", "2.5"], "examples per search, not seconds"),
    (["--find-witnesses", "--budget", "0"], "not a positive whole number of examples"),
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


# --- shared by the tests below ------------------------------------------------------------------------------

def _fake_suite(path: Path, text: str = "old") -> dict[str, bytes]:
    """A directory gen-cases takes for a suite of its own (what it may replace), with a file to compare."""
    (path / "node").mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({"format": SUITE_FORMAT}))
    (path / "node" / "data.txt").write_text(text)
    return _files(path)


def _build(target: Path) -> str:
    """A stand-in for generate_into: a suite of two files (no CPU spent generating)."""
    (target / "node").mkdir()
    (target / "node" / "data.txt").write_text("new")
    (target / "manifest.json").write_text(json.dumps({"format": SUITE_FORMAT, "new": True}))
    return "built"


def _replace(out: Path):
    return outdir.replace(out, _build, serialize.is_suite)


def _hidden(*dirs: Path) -> list[str]:
    """Names starting with a dot in dirs: temporary directories left behind."""
    return sorted(p.name for d in dirs if d.is_dir() for p in d.iterdir() if p.name.startswith("."))


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- --check regenerates with the manifest's options ------------------------------------------------------

@pytest.fixture(scope="module")
def small_suite(tmp_path_factory) -> Path:
    """A suite made with options that are not the defaults."""
    out = tmp_path_factory.mktemp("small") / "suite"
    assert cli.main([str(out), *SMALL, "--seed", "3", "--max-opset", "13"]) == 0
    return out


def test_check_regenerates_with_the_options_in_the_manifest(small_suite, capsys):
    # without the fix --check regenerated every family with the default profile, seed and opset
    assert cli.main([str(small_suite), "--check"]) == 0
    assert "identical" in capsys.readouterr().out


@pytest.mark.parametrize("option, needle", [
    (["--profile", "default"], "--profile default contradicts"),
    (["--seed", "4"], "--seed 4 contradicts"),
    (["--max-opset", "19"], "--max-opset 19 contradicts"),
    (["--family", "cast"], "--family cast contradicts"),
])
def test_check_refuses_an_option_that_contradicts_the_manifest(small_suite, capsys, option, needle):
    assert cli.main([str(small_suite), "--check", *option]) == 2
    line = _one_line(capsys.readouterr().err)
    assert needle in line and str(small_suite / "manifest.json") in line
    recorded = {"--profile": "profile=quick", "--seed": "seed=3", "--max-opset": "max_opset=13",
                "--family": "families=dynamic_quantize_linear"}[option[0]]
    assert recorded in line


def test_check_accepts_options_that_agree_with_the_manifest(small_suite):
    assert cli.main([str(small_suite), "--check", "--seed", "3", "--family", "dynamic_quantize_linear"]) == 0


@pytest.mark.parametrize("options, needle", [
    (None, "records no generation options"),
    ({"families": ["dynamic_quantize_linear"], "profile": "huge", "seed": 0, "max_opset": 13}, "options.profile"),
    ({"families": ["nope"], "profile": "quick", "seed": 0, "max_opset": 13}, "options.families"),
    ({"families": ["dynamic_quantize_linear"], "profile": "quick", "seed": "0", "max_opset": 13}, "options.seed"),
    ({"families": ["dynamic_quantize_linear"], "profile": "quick", "seed": 0, "max_opset": 0}, "options.max_opset"),
])
def test_check_of_a_manifest_without_valid_options(tmp_path, options, needle):
    manifest = {"format": SUITE_FORMAT, "cases": []}
    if options is not None:
        manifest["options"] = options
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    r = run(str(tmp_path), "--check")
    assert r.returncode == 2 and needle in _one_line(r.stderr)


# --- leftovers of dead runs --------------------------------------------------------------------------------

def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_leftovers_of_dead_runs_are_removed_and_a_live_runs_kept(tmp_path):
    out = tmp_path / "suite"
    _fake_suite(out)
    dead = tmp_path / f".suite.new-{_dead_pid()}-abcd1234"  # a killed run's half-written suite
    (dead / "node").mkdir(parents=True)
    (dead / "node" / "big.pb").write_bytes(b"x" * 1000)
    legacy = tmp_path / ".suite.new-k2j4h5l6"  # named by the gen-cases before this one (mkdtemp)
    legacy.mkdir()
    stale_old = tmp_path / f".suite.old-{_dead_pid()}"  # a run killed after its commit, before removing it
    stale_old.mkdir()
    live = tmp_path / f".suite.new-{os.getpid()}-live0000"  # a run writing the same OUT right now
    live.mkdir()
    (live / "manifest.json").write_text("being written")
    mine = tmp_path / ".mine.new-1-keep"  # another OUT's: not ours to judge
    mine.mkdir()
    fd = outdir.lock(live)
    try:
        assert fd is not None
        assert cli.main([str(out), *SMALL]) == 0
        assert (live / "manifest.json").read_text() == "being written"
    finally:
        os.close(fd)
    assert _hidden(tmp_path) == sorted([live.name, mine.name])
    assert read_manifest(out)["options"]["families"] == ["dynamic_quantize_linear"]


def test_a_run_killed_between_its_two_renames_gets_the_old_suite_back(tmp_path):
    out = tmp_path / "suite"
    before = _fake_suite(out)
    os.rename(out, tmp_path / f".suite.old-{_dead_pid()}-aaaa")  # OUT moved aside, the new one not yet in
    (tmp_path / f".suite.new-{_dead_pid()}-aaaa").mkdir()

    def failing_build(target: Path):
        assert _files(out) == before  # put back before anything else
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        outdir.replace(out, failing_build, serialize.is_suite)
    assert _files(out) == before and _hidden(tmp_path) == []


# --- permissions, the .hypothesis directory --------------------------------------------------------------

def test_suite_modes_follow_the_umask(tmp_path):
    out = tmp_path / "suite"
    old = os.umask(0o027)
    try:
        assert cli.main([str(out), *SMALL]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o750  # mkdtemp's 0o700 without the fix
    assert {p.stat().st_mode & 0o777 for p in out.rglob("*") if p.is_dir()} == {0o750}
    assert {p.stat().st_mode & 0o777 for p in out.rglob("*") if p.is_file()} == {0o640}


def test_witness_search_leaves_no_hypothesis_directory(tmp_path):
    # a search as the real ones do it (from_regex fills hypothesis's unicode cache even with database=None),
    # catalogue written to tmp_path
    script = textwrap.dedent("""
        import sys
        from pathlib import Path
        from generator import cli, witness

        def find(family, max_opset, budget):
            from hypothesis import HealthCheck, find, settings, strategies as st
            found = find(st.from_regex(r"[+-]?\\d{1,5}", fullmatch=True), lambda s: len(s) > 2,
                         settings=settings(database=None, max_examples=50, suppress_health_check=list(HealthCheck)))
            return {"family": family, "groups": {"g": {"faults": {"f": {"witnesses": [found]}}}}}

        witness.find = find
        witness.save = lambda catalogue: Path("catalogue.json")
        sys.exit(cli.main(["--find-witnesses", "--family", "cast"]))
    """)
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 (group, fault) pairs with witnesses" in r.stdout
    assert not (tmp_path / ".hypothesis").exists()


# --- mount points and symlinks -----------------------------------------------------------------------------

@pytest.fixture
def mount_point(monkeypatch):
    """Make `path` behave as a mount point: os.path.ismount says so (unless told not to: a bind mount of the
    same file system) and rename(2) of it fails with EBUSY, as the kernel does."""
    real_rename, real_ismount = os.rename, os.path.ismount

    def mount(path: Path, seen: bool = True) -> None:
        path = Path(os.path.realpath(path))

        def rename(src, dst, **kw):
            if Path(src) == path:
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(src))
            return real_rename(src, dst, **kw)

        monkeypatch.setattr(os, "rename", rename)
        monkeypatch.setattr(os.path, "ismount", lambda p: (seen and Path(p) == path) or real_ismount(p))
    return mount


@pytest.mark.parametrize("seen", [True, False], ids=["ismount", "bind_mount"])
def test_out_that_is_a_mount_point_is_written(tmp_path, mount_point, seen):
    out = tmp_path / "mnt"
    _fake_suite(out)
    (out / "node" / "stale.txt").write_text("from the old suite")
    mount_point(out, seen)
    assert _replace(out) == "built"
    assert json.loads((out / "manifest.json").read_text())["new"]
    assert not (out / "node" / "stale.txt").exists()
    assert _hidden(tmp_path, out) == []


def test_gen_cases_writes_into_a_mount_point(tmp_path, mount_point):
    out = tmp_path / "mnt"
    out.mkdir()
    mount_point(out)
    assert cli.main([str(out), *SMALL]) == 0
    assert cli.main([str(out), *SMALL, "--seed", "1"]) == 0
    assert read_manifest(out)["options"]["seed"] == 1
    assert cli.main([str(out), "--check"]) == 0
    assert _hidden(tmp_path, out) == []


def test_an_inside_swap_that_died_before_its_commit_is_rolled_back(tmp_path):
    out = tmp_path / "mnt"
    before = _fake_suite(out)
    old, new = out / ".mnt.old-1-aaaa", out / ".mnt.new-1-aaaa"
    old.mkdir()
    os.rename(out / "manifest.json", old / "manifest.json")  # moved out first; node/ not yet
    new.mkdir()
    _build(new)

    def failing_build(target: Path):
        assert _files(out) == before
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        outdir.replace(out, failing_build, serialize.is_suite)
    assert _files(out) == before and _hidden(tmp_path, out) == []


def test_an_inside_swap_that_died_after_its_commit_is_finished(tmp_path):
    out = tmp_path / "mnt"
    _fake_suite(out)
    prev, new = out / ".mnt.prev-1-aaaa", out / ".mnt.new-1-aaaa"
    prev.mkdir()
    for name in ("manifest.json", "node"):  # every old entry out, then node/ of the new one in
        os.rename(out / name, prev / name)
    new.mkdir()
    _build(new)
    os.rename(new / "node", out / "node")
    want = {"manifest.json": (new / "manifest.json").read_bytes(), "node/data.txt": b"new"}

    def failing_build(target: Path):
        assert _files(out) == want
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        outdir.replace(out, failing_build, serialize.is_suite)
    assert _files(out) == want and _hidden(tmp_path, out) == []


def test_an_inside_swap_that_fails_puts_the_old_suite_back(tmp_path, mount_point, monkeypatch):
    out = tmp_path / "mnt"
    before = _fake_suite(out)
    mount_point(out)
    renamed = os.rename

    def rename(src, dst):
        if Path(dst).name == "node" and Path(dst).parent.name.startswith(".mnt.old-"):
            raise OSError(errno.EIO, "I/O error", str(src))  # the second entry moved out
        return renamed(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError):
        _replace(out)
    assert _files(out) == before and _hidden(tmp_path, out) == []


def test_out_that_is_a_symlink_is_written_through(tmp_path):
    target = tmp_path / "store" / "suite"
    _fake_suite(target)
    link = tmp_path / "link"
    link.symlink_to(target)
    assert cli.main([str(link), *SMALL]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)  # replaced by a directory without the fix
    assert read_manifest(target)["options"]["families"] == ["dynamic_quantize_linear"]
    assert _hidden(tmp_path, tmp_path / "store", target) == []


def test_a_dangling_symlink_gets_its_target_made(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "made" / "suite")
    assert _replace(link) == "built"
    assert link.is_symlink() and json.loads((link / "manifest.json").read_text())["new"]


def test_a_symlink_to_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    with pytest.raises(outdir.Refused, match="not a directory"):
        _replace(tmp_path / "link")
    assert (tmp_path / "file").read_text() == "x"


def test_a_failed_commit_rename_puts_the_old_suite_back(tmp_path, monkeypatch):
    out = tmp_path / "suite"
    before = _fake_suite(out)
    renamed = os.rename

    def rename(src, dst):
        if Path(dst) == out and ".suite.new-" in str(src):  # the commit; putting the old one back works
            raise OSError(errno.EIO, "I/O error", str(src))
        return renamed(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError):
        _replace(out)
    assert _files(out) == before and _hidden(tmp_path) == []


# --- selections that yield no case -------------------------------------------------------------------------

@pytest.mark.parametrize("args, needle", [
    (["--max-opset", "5"], "need ai.onnx opset 10 at least"),
    (["--family", "layout", "--max-opset", "17"], "need ai.onnx opset 18 at least"),
    (["--family", "cast", "--family", "dynamic_quantize_linear", "--max-opset", "10"], "opset 11 at least"),
])
def test_a_selection_without_cases_is_an_error(tmp_path, args, needle):
    out = tmp_path / "suite"
    before = _fake_suite(out)
    r = run(str(out), *args)
    assert r.returncode == 2 and needle in _one_line(r.stderr)  # 0 cases and exit 0 without the fix
    assert _files(out) == before


def test_a_family_without_cases_is_noted(tmp_path, capsys):
    out = tmp_path / "suite"
    assert cli.main([str(out), *SMALL, "--family", "layout", "--max-opset", "13"]) == 0
    err = capsys.readouterr().err
    assert "layout has no case at --max-opset 13 (it needs ai.onnx opset 18)" in err
    assert read_manifest(out)["counts"]["node"] > 0


def test_a_generation_that_yields_nothing_replaces_nothing(tmp_path, monkeypatch, capsys):
    out = tmp_path / "suite"
    before = _fake_suite(out)
    monkeypatch.setattr(suite_generation, "_units", lambda *a: [])
    assert cli.main([str(out), *SMALL]) == 2
    assert "no case to write" in _one_line(capsys.readouterr().err)
    assert _files(out) == before and _hidden(tmp_path) == []


# --- Ctrl-C ------------------------------------------------------------------------------------------------

def _interrupting_unit(monkeypatch):
    load = families.load

    class Family:
        def __init__(self, module):
            self.module = module

        def __getattr__(self, name):
            return getattr(self.module, name)

        def work(self, *args):
            def interrupt():
                raise KeyboardInterrupt
                yield
            units = self.module.work(*args)
            return units[:2] + [interrupt] + units[2:]

    monkeypatch.setattr(families, "load", lambda name: Family(load(name)))


@pytest.mark.parametrize("where", ["unit_serial", "unit_in_worker", "writing", "renaming"])
def test_interrupt_at_any_step_leaves_the_old_suite(tmp_path, monkeypatch, capsys, where):
    out = tmp_path / "suite"
    before = _fake_suite(out)
    if where.startswith("unit"):
        _interrupting_unit(monkeypatch)
        monkeypatch.setattr(os, "cpu_count", lambda: 1 if where == "unit_serial" else 2)
    elif where == "writing":
        def interrupt(*a, **k):
            raise KeyboardInterrupt
        monkeypatch.setattr(serialize, "write_manifest", interrupt)
    else:
        renamed = os.rename

        def rename(src, dst):
            if Path(dst) == out and ".suite.new-" in str(src):  # the commit
                raise KeyboardInterrupt
            return renamed(src, dst)
        monkeypatch.setattr(os, "rename", rename)
    assert cli.main([str(out), *SMALL]) == 130
    assert "interrupted; the suite directory was left as it was" in _one_line(capsys.readouterr().err)
    assert _files(out) == before and _hidden(tmp_path) == []


HOOK = textwrap.dedent("""
    # gen-cases whose third unit signals that it has started (a marker file), then waits to be interrupted
    import os, sys, time
    from pathlib import Path
    from generator import cli, families

    mode, marker = sys.argv[1], Path(sys.argv[2])
    os.cpu_count = lambda: 1 if mode == "serial" else 2  # jobs: 1, or a pool of 2 workers
    load = families.load

    class Family:
        def __init__(self, module):
            self.module = module

        def __getattr__(self, name):
            return getattr(self.module, name)

        def work(self, *args):
            def wait():
                marker.write_text(str(os.getpid()))
                time.sleep(300)
                yield from ()
            units = self.module.work(*args)
            waits = [wait, wait] if mode == "busy" else [wait]  # busy: both workers wait, later blocks queue
            return units[:2] + waits + units[2:]

    families.load = lambda name: Family(load(name))
    if mode == "spawn":  # Ctrl-C to the process group as the pool forks its first worker
        import multiprocessing, signal
        Process = multiprocessing.get_context("fork").Process
        start = Process.start
        def interrupted_start(self):
            start(self)
            os.killpg(os.getpgrp(), signal.SIGINT)
        Process.start = interrupted_start
    if mode == "swap":  # Ctrl-C as the new suite is renamed into place
        import signal
        rename = os.rename
        def interrupted_rename(src, dst):
            if Path(dst) == Path(sys.argv[3]):
                os.kill(os.getpid(), signal.SIGINT)
            rename(src, dst)
        os.rename = interrupted_rename
        families.load = load
    sys.exit(cli.main(sys.argv[3:]))
""")


def _as_from_a_terminal() -> None:
    """The child starts with SIGINT as a shell gives it: default handling, not blocked. Both are inherited
    across exec, and a test process may hold other settings (an xdist worker, or an in-process run's signal
    handling) that would make the child deaf to the Ctrl-C under test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start(tmp_path: Path, mode: str, out: Path, *args: str) -> tuple[subprocess.Popen, Path]:
    marker = tmp_path / f"started-{mode}"
    p = subprocess.Popen([sys.executable, "-c", HOOK, mode, str(marker), str(out), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=_as_from_a_terminal)
    return p, marker


def _signal_state(pid: int) -> str:
    """The signal masks /proc gives for a process (blocked, ignored, caught), for a hang's message."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "no /proc status"
    return "; ".join(line for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd")))


def _finish(p: subprocess.Popen) -> str:
    """stderr of the run; a run that hangs is killed and fails the test (naming its signal state)."""
    try:
        return p.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        state = _signal_state(p.pid)
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError(f"gen-cases hung after Ctrl-C ({state})") from None


def _wait_for(marker: Path, p: subprocess.Popen) -> None:
    while not marker.exists():
        assert p.poll() is None, p.communicate()
        try:
            p.wait(0.05)
        except subprocess.TimeoutExpired:
            pass


@pytest.mark.parametrize("mode", ["serial", "pool", "busy"])
def test_real_ctrl_c_while_drawing(tmp_path, mode):
    # busy: without the fix the pool's manager thread printed a traceback (InvalidStateError: CANCELLED) on the
    # blocks still queued, which the interrupted map() had cancelled
    out = tmp_path / "suite"
    before = _fake_suite(out)
    # busy needs more blocks than the pool runs at once: layout's quick profile has 31 units
    p, marker = _start(tmp_path, mode, out, *(["--family", "layout", "--profile", "quick"] if mode == "busy" else SMALL))
    _wait_for(marker, p)
    assert _hidden(tmp_path)  # its temporary directory
    os.killpg(p.pid, signal.SIGINT)  # as a terminal does: the parent and its workers
    err = _finish(p)
    assert p.returncode == 130
    assert "interrupted; the suite directory was left as it was" in _one_line(err)
    assert _files(out) == before and _hidden(tmp_path) == []


def test_real_ctrl_c_as_the_workers_start(tmp_path):
    # without the fix: tracebacks of the workers, then a hang
    out = tmp_path / "suite"
    before = _fake_suite(out)
    p, _ = _start(tmp_path, "spawn", out, *SMALL)
    err = _finish(p)
    assert p.returncode == 130
    assert "interrupted; the suite directory was left as it was" in _one_line(err)
    assert _files(out) == before and _hidden(tmp_path) == []


def test_real_ctrl_c_during_the_swap_finishes_it(tmp_path):
    out = tmp_path / "suite"
    _fake_suite(out)
    p, _ = _start(tmp_path, "swap", out, *SMALL)
    err = _finish(p)
    assert p.returncode == 130
    assert "already holds the new suite" in _one_line(err)
    assert read_manifest(out)["options"]["families"] == ["dynamic_quantize_linear"]
    assert _hidden(tmp_path) == []


def test_a_concurrent_run_keeps_its_temporary_directory(tmp_path):
    out = tmp_path / "suite"
    _fake_suite(out)
    p, marker = _start(tmp_path, "pool", out, *SMALL)
    try:
        _wait_for(marker, p)
        theirs = _hidden(tmp_path)
        assert len(theirs) == 1
        assert cli.main([str(out), *SMALL, "--seed", "5"]) == 0  # cleans leftovers: must spare the live one's
        assert _hidden(tmp_path) == theirs
    finally:
        os.killpg(p.pid, signal.SIGINT)
        _finish(p)
    assert p.returncode == 130
    assert read_manifest(out)["options"]["seed"] == 5 and _hidden(tmp_path) == []


def _gone(pid: int) -> bool:
    """Dead, or a zombie: its files, and so its locks, are closed."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def _children(pid: int) -> list[int]:
    """The processes whose parent is pid (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_run_takes_its_workers_along_and_the_next_run_removes_its_leftover(tmp_path):
    out = tmp_path / "suite"
    _fake_suite(out)
    p, marker = _start(tmp_path, "pool", out, *SMALL)
    _wait_for(marker, p)
    worker = int(marker.read_text())
    workers = _children(p.pid)  # both of the pool's: each holds the lock of the run's directory
    leftover = _hidden(tmp_path)
    assert len(leftover) == 1 and worker != p.pid and worker in workers
    os.kill(p.pid, signal.SIGKILL)  # the parent only, as the OOM killer does
    p.wait()  # not communicate(): a worker that outlived it would hold its pipes open
    try:
        for _ in range(600):  # workers get SIGKILL as their parent dies (without the fix one slept on, locked)
            if all(map(_gone, workers)):
                break
            time.sleep(0.1)
        assert all(map(_gone, workers)), "a worker outlived its killed parent"
    finally:
        for pid in workers:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
        p.stdout.close()
        p.stderr.close()
    assert cli.main([str(out), *SMALL]) == 0
    assert _hidden(tmp_path) == []


def test_a_file_system_without_locks_is_written_and_its_leftovers_kept(tmp_path, monkeypatch):
    out = tmp_path / "suite"
    _fake_suite(out)
    unknown = tmp_path / ".suite.new-1-abcd"  # dead or alive: without locks no one can tell
    unknown.mkdir()

    def flock(fd, op):
        raise OSError(errno.EBADF, "NFS: no exclusive lock on a read-only descriptor")

    monkeypatch.setattr(outdir.fcntl, "flock", flock)
    assert _replace(out) == "built"
    assert json.loads((out / "manifest.json").read_text())["new"]
    assert _hidden(tmp_path) == [unknown.name]


def test_a_max_opset_newer_than_the_installed_onnx_is_one_line(tmp_path, capsys):
    """Its schemas decide which cases exist: a suite past them would lack cases its manifest claims."""
    import onnx

    newest = onnx.defs.onnx_opset_version()
    out = tmp_path / "s"
    assert cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", str(newest + 1)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"knows ai.onnx opsets up to {newest}" in err[0] and "Traceback" not in err[0]
    assert not out.exists()
    assert cli.main([str(out), "--family", "cast", "--profile", "quick", "--max-opset", str(newest)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["options"]["max_opset"] = newest + 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert cli.main([str(out), "--check"]) == 2
    assert "options.max_opset" in capsys.readouterr().err


def test_witness_search_keeps_the_hunted_findings(monkeypatch):
    # `opconform hunt --keep` adds findings no search finds again; a new search must not drop them
    from generator import witness
    saved = []
    monkeypatch.setattr(witness, "find", lambda family, max_opset, budget: {"family": family, "groups": {}})
    monkeypatch.setattr(witness, "load", lambda family: {"family": family, "groups": {},
                                                         "hunted": [{"name": "hunted_x", "group": "g", "args": {}}]})
    monkeypatch.setattr(witness, "save", lambda catalogue: saved.append(catalogue) or Path("catalogue.json"))
    assert cli.main(["--find-witnesses", "--family", "cast"]) == 0
    assert saved[0]["hunted"] == [{"name": "hunted_x", "group": "g", "args": {}}]
