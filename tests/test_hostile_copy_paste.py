"""Copy-paste runs nothing (issue 31, part 5): every command opconform prints for a user to paste (the report's
rerun and reproduce lines, HTML and Markdown; `opconform repro --script`'s `python FILE`; a column's selection)
is shell-quoted (runners/commands.py), and the script `--script` writes holds no suite text as code.

A suite whose case name holds quotes, `$(...)`, backticks, triple quotes, `;` and `&&`, with a compare reason
that would close a docstring, and a case whose name holds a line feed, is run with pytest, reported and
reproduced. Each printed line is run with bash, its program a recorder of its argv: no marker file appears and
the program gets the real name (then the real program is run with that argv). The script is checked token by
token and run with python.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from onnx import TensorProto

from generator.serialize import write_manifest
from runners.backends.base import UnknownBackend
from runners.backends.registry import get_backend
from runners.commands import NOT_SHOWN, command_line, repro_command, rerun_command
from runners.escape import printable
from runners.report import load, render
from runners.results import write_results

ROOT = Path(__file__).resolve().parents[1]
FLOAT8 = ROOT / "cases" / "node" / "test_cast_bfloat16_to_float8e4m3fn_nosat_edge"  # one data set, 154 elements
FLOAT16 = ROOT / "cases" / "node" / "test_cast_float16_to_float32_edge"  # one data set: types the JS API takes
# every way out of a quoted shell word or a Python string or docstring; each breakout touches a PWNED* file
HOSTILE = ("test_$(touch PWNED1)`touch PWNED2`;touch PWNED3&&touch PWNED4 | q'd\"'''x\"\"\"+"
           "__import__('os').system('touch PWNED5')+\"\"\"*")
NEWLINE = "test_nl\n$(touch PWNED6)"  # refused by the runner: one invalid-case item, its name escaped
REASON = "x\"\"\"\n__import__('os').system('touch PWNED7')\r'''#"  # ends a docstring, a comment, a string
SCRIPT = "repro $(touch PWNED8) 'q`touch PWNED9`.py"
BACKEND = "onnx-reference"
RECORDER = """import json, os, sys
with open(os.environ["ARGV_LOG"], "a") as f:
    f.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\\n")
"""


def env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def case(suite: Path, name: str, source: Path = FLOAT8) -> None:
    """A copy of the float8 case (or `source`) named `name`, its first expected element off by one bit (every
    backend fails it), its compare reason REASON."""
    d = Path(shutil.copytree(source, suite / "node" / name))
    meta = json.loads((d / "case.json").read_text())
    out = d / "test_data_set_0" / "output_0.pb"
    t = TensorProto()
    t.ParseFromString(out.read_bytes())
    t.raw_data = bytes([t.raw_data[0] ^ 1]) + t.raw_data[1:]
    out.write_bytes(t.SerializeToString())
    meta["sha256"]["test_data_set_0/output_0.pb"] = hashlib.sha256(out.read_bytes()).hexdigest()
    meta["name"], meta["compare"]["reason"] = name, REASON
    (d / "case.json").write_text(json.dumps(meta))


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The suite run with pytest and reported (r.json, r.html, r.md), in a folder of its own; bin/ holds
    recorders named pytest, opconform and python."""
    root = tmp_path_factory.mktemp("paste")
    for name in (HOSTILE, NEWLINE):
        case(root / "suite", name)
    write_manifest(root / "suite", {}, [{"name": n, "kind": "node", "family": "cast", "op": "Cast"}
                                        for n in (HOSTILE, NEWLINE)])
    run = subprocess.run([sys.executable, "-m", "pytest", "suite", "--backend", BACKEND, "-p", "no:cacheprovider",
                          "-q", "--report", "r.json"], cwd=root, env=env(), capture_output=True, text=True)
    assert run.returncode == 1 and "2 failed" in run.stdout, run.stdout + run.stderr
    for out in ("r.html", "r.md"):
        done = subprocess.run([sys.executable, "-m", "runners.cli", "report", "r.json", "-o", out], cwd=root,
                              env=env(), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    (root / "bin").mkdir()
    for program in ("pytest", "opconform", "python"):
        (root / "bin" / program).write_text(f"#!{sys.executable}\n{RECORDER}")
        (root / "bin" / program).chmod(0o755)
    return root


def pasted(work: Path, line: str) -> list[str]:
    """The argv the program of `line` gets when the line is pasted into bash in `work` (the program a
    recorder); no marker file may appear."""
    log = work / "argv.log"
    log.unlink(missing_ok=True)
    done = subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, text=True,
                          env=dict(os.environ, PATH=f"{work / 'bin'}{os.pathsep}{os.environ['PATH']}",
                                   ARGV_LOG=str(log)))
    assert not markers(work), (line, done.stderr)
    assert log.exists(), (line, done.stderr)  # the line parsed and ran its program
    [argv] = [json.loads(x) for x in log.read_text().splitlines()]
    return argv


def markers(work: Path) -> list[Path]:
    return [p for p in work.rglob("PWNED*")] + list(Path.cwd().glob("PWNED*"))


def html_commands(work: Path, label: str) -> list[str]:
    page = (work / "r.html").read_text()
    return [html.unescape(c) for c in re.findall(rf"<dt>{label}</dt><dd><code>(.*?)</code></dd>", page, re.S)]


def test_the_names_would_run_code_unquoted(tmp_path):
    """The controls: the name pasted bare runs its commands, and a quote in a name breaks out of the old rerun
    line's plain single quotes."""
    subprocess.run(["bash", "-c", f"echo suite/node/{HOSTILE} >/dev/null"], cwd=tmp_path, capture_output=True)
    assert {p.name for p in markers(tmp_path)} >= {"PWNED1", "PWNED2", "PWNED3", "PWNED4"}
    old = "true 'suite/node/{0}/model.onnx::{0}[0]' --backend B".format("test_q'$(touch PWNED0)'")
    subprocess.run(["bash", "-c", old], cwd=tmp_path, capture_output=True)
    assert (tmp_path / "PWNED0").exists()


def test_the_html_rerun_line_pasted_reruns_the_real_item_and_runs_nothing_else(work):
    lines = html_commands(work, "rerun")
    assert len(lines) == 2 and not markers(work)
    [line] = [x for x in lines if "PWNED1" in x]
    argv = pasted(work, line)
    assert argv == ["pytest", f"suite/node/{HOSTILE}/model.onnx::{HOSTILE}[0]", "--backend", BACKEND]
    rerun = subprocess.run([sys.executable, "-m", "pytest", *argv[1:], "-p", "no:cacheprovider", "-q"], cwd=work,
                           env=env(), capture_output=True, text=True)
    assert rerun.returncode == 1 and "1 failed" in rerun.stdout, rerun.stdout + rerun.stderr  # that very item
    assert not markers(work)


def test_the_html_and_markdown_reproduce_lines_pasted_run_the_real_item(work):
    cmarkgfm = pytest.importorskip("cmarkgfm")  # GitHub's own renderer: what a reader of the Markdown copies
    [from_html] = html_commands(work, "reproduce")
    md = (work / "r.md").read_text()
    rendered = cmarkgfm.github_flavored_markdown_to_html(md)
    [from_md] = [html.unescape(c) for c in re.findall(r"reproduce: <code>(.*?)</code>", rendered, re.S)]
    assert from_md == from_html
    argv = pasted(work, from_html)
    assert argv == ["opconform", "repro", f"suite/node/{HOSTILE}[0]", "--backend", BACKEND]
    done = subprocess.run([sys.executable, "-m", "runners.cli", *argv[1:]], cwd=work, env=env(),
                          capture_output=True, text=True)
    assert done.returncode == 1 and "verdict   fail" in done.stdout, done.stderr
    assert not markers(work)


def test_a_name_with_a_line_feed_is_refused_and_its_rerun_line_names_only_its_escaped_text(work):
    [line] = [x for x in html_commands(work, "rerun") if "PWNED6" in x]
    shown = printable(f"suite/node/{NEWLINE}")
    assert pasted(work, line) == ["pytest", f"{shown}::{printable(NEWLINE)}[0]", "--backend", BACKEND]
    assert not (work / "suite" / "node" / printable(NEWLINE)).exists()  # a path that does not exist: nothing run
    assert "holds control or bidi characters (refused, not read)" in (work / "r.html").read_text()


def test_the_script_holds_suite_text_only_in_comments_and_its_command_pasted_runs_it(work):
    item = f"suite/node/{HOSTILE}[0]"
    done = subprocess.run([sys.executable, "-m", "runners.cli", "repro", item, "--backend", BACKEND, "--script",
                           SCRIPT], cwd=work, env=env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    prefix = f"opconform repro: wrote {SCRIPT} ("
    assert done.stdout.startswith(prefix) and done.stdout.endswith(")\n"), done.stdout
    line = done.stdout[len(prefix):-2]
    text = (work / SCRIPT).read_text(encoding="utf-8")
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    code = [t for t in tokens if t.type != tokenize.COMMENT and "PWNED" in t.string]
    assert code == [] and sum("PWNED" in t.string for t in tokens) == 2  # the item's line, the reason's 2nd
    compile(text, SCRIPT, "exec")
    argv = pasted(work, line)
    assert argv == ["python", SCRIPT]
    run = subprocess.run([sys.executable, *argv[1:]], cwd=work, capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout.splitlines()[-1] == "1 element(s) differ", run.stdout + run.stderr
    assert not markers(work)


def test_the_javascript_script_holds_suite_text_only_in_comments(tmp_path):
    """The template of the JS backends (runners/repro_js.py), whose comments end at a line feed, CR, U+2028 or
    U+2029 (each escaped; the Python templates share the frame above, their settings ascii() literals). Run with
    onnxruntime-node, the script finds the flipped bit."""
    try:
        get_backend("onnxruntime-node")
    except UnknownBackend as exc:
        pytest.skip(str(exc))
    script = SCRIPT[:-3] + ".mjs"
    case(tmp_path / "suite", HOSTILE, FLOAT16)
    done = subprocess.run([sys.executable, "-m", "runners.cli", "repro", f"suite/node/{HOSTILE}[0]", "--backend",
                           "onnxruntime-node", "--script", script], cwd=tmp_path, env=env(), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"opconform repro: wrote {script} ({command_line(['node', script])})\n"
    text = (tmp_path / script).read_text(encoding="utf-8")
    assert all(line.startswith("// ") for line in text.splitlines() if "PWNED" in line) and "/*" not in text
    assert not any(c in text for c in "\r\u2028\u2029")
    assert sum("PWNED" in line for line in text.splitlines()) == 2  # the item's line, the reason's 2nd
    from runners.backends.js_packages import js_dir

    run = subprocess.run(["node", script, str(js_dir())], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout.splitlines()[-1] == "1 element(s) differ", run.stdout + run.stderr
    assert not markers(tmp_path)


def test_a_results_file_with_unpastable_names_gets_no_command_and_a_quoted_selection(tmp_path):
    """Records are data: a node id holding a line feed or an escape sequence gets no rerun line (shown
    escaped it would name another item), and a -k that would run code is shown quoted."""
    records = [{"case": f"test_{i}", "dataset": 0, "kind": "node", "verdict": "fail", "family": "cast",
                "message": "m", "nodeid": nodeid} for i, nodeid in enumerate(["a\n$(touch PWNED)", "b\x1b[2J", "c\td"])]
    path = write_results(tmp_path / "r.json", records, {
        "backend": {"name": BACKEND, "version": "1", "settings": {}}, "tier": "strict",
        "selection": {"family": ["cast"], "k": "$(touch PWNED_K)", "m": None, "shard": None, "paths": [],
                      "cases": None}})
    page = render(load([path]))
    assert "<dt>rerun</dt>" not in page and page.count(NOT_SHOWN) == 3
    [shown] = re.findall(r"(--family [^<]*): whole suite", page)
    done = subprocess.run(["bash", "-c", f"printf '%s\\0' {html.unescape(shown)}"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.stdout.split("\0")[:-1] == ["--family", "cast", "-k", "$(touch PWNED_K)"] and not markers(tmp_path)


@pytest.mark.parametrize("arg", ["a\nb", "a\rb", "a\x1b[2Jb", "a\u202eb", "a\tb", "a\x00b"])
def test_a_command_with_an_unpastable_argument_is_not_shown(arg):
    assert command_line(["pytest", arg]) is None
    assert rerun_command(arg, BACKEND) is None and repro_command(Path(arg), 0, BACKEND) is None


@pytest.mark.parametrize("arg", [HOSTILE, "", " ", "-x", "it's", "a\\b", "*", "~", "é ü", "!!", "#c"])
def test_a_command_reads_back_as_its_arguments(arg):
    line = command_line(["opconform", "repro", arg, "--backend", arg])
    assert shlex.split(line) == ["opconform", "repro", arg, "--backend", arg]
    assert repro_command("s", 2, "b", "tolerant") == "opconform repro 's[2]' --backend b --tier tolerant"
