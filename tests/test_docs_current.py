"""The README and docs/ stay true to the committed suite: docs/suite.md is what scripts/suite_facts.py writes from
cases/ (so a regeneration of cases/ that forgets it fails here), the counts the README quotes are the suite's, and
every local link of the README and docs/ leads to a file that exists."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "suite_facts.py"
README = ROOT / "README.md"


@functools.cache
def _script():
    spec = importlib.util.spec_from_file_location("suite_facts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def facts():
    return _script().suite_facts(ROOT / "cases")


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def test_suite_md_is_what_the_script_writes_from_the_committed_suite(facts):
    want = _script().render(facts)
    have = (ROOT / "docs" / "suite.md").read_text()
    assert have == want, "docs/suite.md is stale: run `python scripts/suite_facts.py` after regenerating cases/"


def test_items_are_counted_as_the_runner_collects_them(tmp_path):
    """One item per data set; a case without data sets is one item, and a negative case is one item always."""
    cases = [("node", "test_a", 3), ("probe", "test_b", 0), ("negative", "test_c", 0), ("negative", "test_d", 1),
             ("graph", "test_e", 2)]
    for kind, name, n in cases:
        d = tmp_path / kind / name
        d.mkdir(parents=True)
        (d / "case.json").write_text("{}")
        for i in range(n):
            (d / f"test_data_set_{i}").mkdir()
            (d / f"test_data_set_{i}" / "input_0.pb").write_bytes(b"12345")
    manifest = {"options": {"profile": "quick", "seed": 0, "max_opset": 21},
                "cases": [{"family": "fam", "kind": k, "name": n} for k, n, _ in cases]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    f = _script().suite_facts(tmp_path)
    assert (f.n_cases, f.datasets["fam"], f.items["fam"]) == (5, 6, 3 + 1 + 1 + 1 + 2)
    assert f.by_kind_items == {"node": 3, "probe": 1, "negative": 2, "graph": 2}
    assert f.bytes["fam"] == 5 * 2 + 6 * 5


def test_check_fails_on_a_stale_page_and_passes_on_a_fresh_one(tmp_path, capsys):
    suite = tmp_path / "suite"
    (suite / "node" / "test_a" / "test_data_set_0").mkdir(parents=True)
    (suite / "manifest.json").write_text(json.dumps(
        {"options": {}, "cases": [{"family": "fam", "kind": "node", "name": "test_a"}]}))
    page = tmp_path / "suite.md"
    main = _script().main
    assert main([str(suite), "-o", str(page), "--check"]) == 1  # no page yet
    assert main([str(suite), "-o", str(page)]) == 0
    assert main([str(suite), "-o", str(page), "--check"]) == 0
    (suite / "node" / "test_a" / "test_data_set_1").mkdir()  # a regenerated suite with one more data set
    assert main([str(suite), "-o", str(page), "--check"]) == 1
    assert "does not match" in capsys.readouterr().err


def test_a_missing_suite_is_one_line_and_exit_2(tmp_path, capsys):
    assert _script().main([str(tmp_path / "nowhere"), "-o", str(tmp_path / "x.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable suite" in err
    assert not (tmp_path / "x.md").exists()


def test_the_readme_quotes_the_suites_counts(facts):
    """The README's "N cases, M items" and the first run's summary lines it quotes add up to the suite's items."""
    text = README.read_text()
    sizes = re.findall(r"([\d,]+) cases, ([\d,]+) items", text)
    assert sizes, "the README states the suite's size as 'N cases, M items'"
    for cases, items in sizes:
        assert (_int(cases), _int(items)) == (facts.n_cases, facts.total(facts.items))
    verdicts = re.search(r"opconform verdicts on \S+ [\d.]+: ((?:\d+ [a-z-]+(?:, )?)+)", text)
    assert verdicts, "the README quotes the first run's verdict line"
    assert sum(int(n) for n in re.findall(r"(\d+) [a-z-]+", verdicts.group(1))) == facts.total(facts.items)
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
             "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
    families = re.search(r"(\w+) families, each an operator", text)
    assert families and families.group(1).lower() == words[len(facts.cases)], "the README's count of families"
    summary = re.search(r"(\d+) failed, (\d+) passed, (\d+) skipped in", text)
    assert summary, "the README quotes pytest's summary line of the first run"
    assert sum(int(n) for n in summary.groups()) == facts.total(facts.items)



def test_the_docs_quote_each_familys_counts(facts):
    """The per-family counts docs/ states as the committed suite's: cases and items per kind, fault models and groups
    (the kill matrix), so that a regeneration that changes them fails here until the text says so."""
    qdq = (ROOT / "docs" / "quantize_dequantize.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \((\d+) / (\d+) / (\d+)\) \| (\d+) \((\d+) / (\d+) / (\d+)\) \| (\d+) \((\d+)\) \|$",
                      qdq, flags=re.M)
    assert {r[0] for r in rows} == {"quantize_linear", "dequantize_linear", "cast_like"}
    for family, *numbers in rows:
        c, i, k = facts.cases[family], facts.kind_items[family], facts.kill[family]
        want = [sum(c.values()), c["node"], c["negative"], c["probe"], sum(i.values()), i["node"], i["negative"],
                i["probe"], len(k["faults"]), len(k["groups"])]
        assert [int(n) for n in numbers] == want, family
    cpt = re.search(r"Default profile: (\d+) cases \((\d+) node, (\d+) negative, (\d+) probe\), (\d+) items",
                    (ROOT / "docs" / "convert_promote_types.md").read_text())
    c = facts.cases["convert_promote_types"]
    assert [int(n) for n in cpt.groups()] == [sum(c.values()), c["node"], c["negative"], c["probe"],
                                               facts.items["convert_promote_types"]]
    layout = re.search(r"explicit-defaults variants \((\d+) cases\)", (ROOT / "docs" / "checks.md").read_text())
    assert int(layout.group(1)) == sum(facts.cases["layout"].values())


def _local_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


@pytest.mark.parametrize("doc", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_every_local_link_leads_to_a_file(doc):
    missing = [t for t in _local_links(doc) if not (doc.parent / t.split("#")[0]).exists()]
    assert not missing, f"{doc.name} links to files that do not exist: {missing}"


def _readme_commands() -> dict[str, set[str]]:
    """The long options each command of the README's code lines uses: {"pytest": {...}, "opconform report": ...}."""
    uses: dict[str, set[str]] = {}
    for line in README.read_text().splitlines():
        if not line.startswith("    "):
            continue
        for command in re.split(r"&&|\|", line.split("#")[0]):
            words = command.split()
            if not words or words[0] not in ("pytest", "opconform", "gen-cases") \
                    or re.match(r"opconform(:| gate:| verdicts on )", command.strip()):  # quoted output
                continue
            name = " ".join(words[:2]) if words[0] == "opconform" else words[0]
            uses.setdefault(name, set()).update(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", command))
    return uses


def test_every_option_the_readme_uses_exists():
    """A README command with an option its program does not take (a renamed or imagined one) fails here."""
    import subprocess

    uses = _readme_commands()
    assert {"pytest", "opconform report"} <= set(uses)
    from cli_in_process import opconform

    bad = []
    for name, options in sorted(uses.items()):
        argv = {"pytest": [sys.executable, "-m", "pytest"], "gen-cases": [sys.executable, "-m", "generator.cli"]}.get(
            name, [sys.executable, "-m", "runners.cli", *name.split()[1:]])
        if name.startswith("opconform ") and name != "opconform run":  # in this process (run: a command)
            helped = opconform(*name.split()[1:], "--help")
        else:
            helped = subprocess.run([*argv, "--help"], capture_output=True, text=True, cwd=ROOT, timeout=300)
        if helped.returncode != 0:
            bad.append(f"{name}: --help exits {helped.returncode}")
            continue
        bad += [f"{name} {o}" for o in sorted(options) if not re.search(rf"(?<![\w-]){o}(?![\w-])", helped.stdout)]
    assert not bad, f"the README uses options that do not exist: {bad}"
