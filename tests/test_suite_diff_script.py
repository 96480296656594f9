"""scripts/suite_diff.py: two suites' per-family counts and the cases added, removed and changed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("suite_diff", ROOT / "scripts" / "suite_diff.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _case(root: Path, kind: str, name: str, family: str, payload: bytes, sets: int = 1) -> None:
    d = root / kind / name
    d.mkdir(parents=True)
    (d / "case.json").write_text(json.dumps({"family": family}))
    for i in range(sets):
        (d / f"test_data_set_{i}").mkdir()
        (d / f"test_data_set_{i}" / "input_0.pb").write_bytes(payload)


def test_counts_added_removed_and_changed_per_family(tmp_path, capsys):
    old, new = tmp_path / "old", tmp_path / "new"
    _case(old, "node", "test_a", "cast", b"1")
    _case(old, "node", "test_b", "cast", b"2")
    _case(old, "negative", "test_n", "quantize_linear", b"", sets=0)
    _case(new, "node", "test_a", "cast", b"1")          # unchanged
    _case(new, "node", "test_b", "cast", b"3", sets=2)  # changed: other bytes, one more data set
    _case(new, "node", "test_c", "cast", b"4")          # added; test_n removed
    assert _script().main([str(old), str(new)]) == 0
    rows = {line.split(" | ")[0].strip("| "): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["cast"].split(" | ")[1:] == ["2", "3", "2", "4", rows["cast"].split(" | ")[5],
                                             rows["cast"].split(" | ")[6], "1", "0", "1 |"]
    assert rows["quantize_linear"].split(" | ")[1:5] == ["1", "0", "1", "0"]
    assert rows["quantize_linear"].endswith("| 0 | 1 | 0 |")


def test_a_directory_that_is_no_suite_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "suite" / "node").mkdir(parents=True)
    assert _script().main([str(tmp_path / "nothing"), str(tmp_path / "suite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is no suite" in err[0]
