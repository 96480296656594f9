"""scripts/chain_rewrites.py: the ops onnxruntime's optimized model holds per level, the verdicts, and one line for a
suite it cannot read."""

import importlib.util
import json
from pathlib import Path

import pytest

from family_cases import generate
from generator.families import chains
from generator.serialize import write_case

pytest.importorskip("onnxruntime")
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "chain_rewrites.py"


def _script():
    spec = importlib.util.spec_from_file_location("chain_rewrites", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_lists_the_optimized_ops_and_verdicts_per_level(tmp_path, capsys):
    cases = generate(chains)
    for name in ("test_chain_cast_float_float16_float_constant", "test_chain_cast_float_float16_float_fed"):
        write_case(cases[name], tmp_path)
    out = tmp_path / "rows.json"
    assert _script().main([str(tmp_path), "--levels", "disable,basic", "--no-openvino", "--json", str(out)]) == 0
    rows = {r["case"]: r for r in json.loads(out.read_text())}
    constant = rows["test_chain_cast_float_float16_float_constant"]
    assert constant["ops"] == ["Cast", "Cast"] and constant["rewrite"] == "cast_chain_elimination"
    # onnxruntime folds a chain of constants at basic (its constant folder), not with optimizations disabled
    assert constant["onnxruntime"]["disable"]["ops"] == ["Cast", "Cast"]
    assert constant["onnxruntime"]["basic"]["ops"] == []
    assert {constant["onnxruntime"][lvl]["verdict"] for lvl in ("disable", "basic")} <= {"pass", "fail"}
    assert rows["test_chain_cast_float_float16_float_fed"]["openvino"] is None
    text = capsys.readouterr().out
    assert text.startswith("| case | rewrite | model | ort disable | ort basic | openvino |")
    assert "cast_float_float16_float_constant | cast_chain_elimination | Cast Cast |" in text
    assert "(none) **rewritten**" in text


def test_a_folder_without_graph_cases_is_one_line(tmp_path, capsys):
    assert _script().main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no graph/ folder" in err


def test_an_unknown_level_is_one_line(tmp_path, capsys):
    write_case(generate(chains)["test_chain_cast_float_float_fed"], tmp_path)
    assert _script().main([str(tmp_path), "--levels", "fastest", "--no-openvino"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "graph_optimization_level=fastest" in err


def test_the_summary_says_which_fusion_fires_at_which_level(tmp_path, capsys):
    cases = generate(chains)
    for name in ("test_chain_dq_add_q_initializers", "test_chain_dq_add_q_fed", "test_chain_dq_sigmoid_q_initializers"):
        write_case(cases[name], tmp_path)
    assert _script().main([str(tmp_path), "--levels", "basic,extended", "--no-openvino", "--summary"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("| rewrite | cases | ort basic | ort extended | openvino |")
    add = next(line for line in text.splitlines() if line.startswith("| qdq_add_fusion |"))
    # onnxruntime's QDQ selectors run at extended, not basic; its fused QLinearAdd adds the zero point before
    # rounding, so the cases' ties fail there
    assert "| 2 | fired 0/2; pass 2 | fired 2/2, fused 2 into QLinearAdd; fail 2 |" in add
    assert "fired 1/1, fused 1 into QLinearSigmoid; pass 1" in text
