"""--max-opset N at run time (issue 20, item 7): an item whose model imports an ONNX opset newer than N is
`unsupported` with the reason "opset 21 > --max-opset 19" (kept visible in the results and the report, counted
apart from failures), whatever its kind; the others run as before; the limit is recorded in the settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from onnx import helper

from generator.serialize import read_case
from runners.execute import run_case_dataset
from runners.input_modes import RunMode, default_opset, opset_refusal

pytest_plugins = ["pytester"]
CASES = Path(__file__).resolve().parent.parent / "cases"
OPSET21 = "test_dequantizelinear_blocked_float8e4m3fn_float32_axis1_block4_opset21"


def _model(*imports: tuple[str, int]):
    graph = helper.make_graph([], "g", [], [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports])


def test_the_onnx_domain_decides():
    model = _model(("", 13), ("org.openvinotoolkit", 30))
    assert default_opset(model) == 13
    assert opset_refusal(model, RunMode(max_opset=13)) is None
    assert opset_refusal(model, RunMode(max_opset=12)) == "opset 13 > --max-opset 12"
    assert opset_refusal(_model(("ai.onnx", 23)), RunMode(max_opset=21)) == "opset 23 > --max-opset 21"
    assert opset_refusal(_model(("com.microsoft", 1)), RunMode(max_opset=1)) is None  # no ONNX import
    assert opset_refusal(_model(("", 25)), RunMode()) is None


@pytest.mark.parametrize("bad", [0, -3, True, "21"])
def test_a_bad_limit_is_refused(bad):
    with pytest.raises(ValueError, match="--max-opset"):
        RunMode(max_opset=bad)


def test_a_newer_case_is_unsupported_without_being_prepared():
    case = read_case(CASES / "node" / OPSET21)

    class NeverPrepared:
        name = "never"

        def version(self):
            return "1"

        def prepare(self, model, c):
            raise AssertionError("prepared")

        run = prepare

    r = run_case_dataset(NeverPrepared(), case, 0, "strict", {}, RunMode(max_opset=19))
    assert r.verdict == "unsupported"
    assert r.message.endswith("unsupported: opset 21 > --max-opset 19")
    assert r.settings == {"max_opset": 19}


def test_the_runner_keeps_newer_items_visible_as_unsupported(pytester):
    root = pytester.path / "s"
    for rel in ("node/" + OPSET21, "node/test_qlinearconv_auto_pad_notset",
                "negative/test_qlinearconv_negative_bias_length", "probe/test_quantizelinear_float16_x_opset19_probe"):
        shutil.copytree(CASES / rel, root / rel)
    report = pytester.path / "r.json"
    result = pytester.runpytest(str(root), "--backend", "opconform", "--max-opset", "19", "--report", str(report),
                                "-rs")
    result.assert_outcomes(passed=10, skipped=2)
    result.stdout.fnmatch_lines(["*opset 21 > --max-opset 19*"])
    data = json.loads(report.read_text())
    verdicts = {(r["case"], r["dataset"]): r["verdict"] for r in data["records"]}
    assert verdicts[OPSET21, 0] == verdicts[OPSET21, 1] == "unsupported"
    assert data["backend"]["settings"] == {"max_opset": 19}
    assert {v for (c, _), v in verdicts.items() if c != OPSET21} == {"pass", "probe"}


def test_a_bad_limit_is_a_usage_error(pytester):
    (pytester.path / "s").mkdir()
    result = pytester.runpytest("s", "--backend", "opconform", "--max-opset", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--max-opset 0: an opset number, 1 or more" in result.stderr.str()
    assert "Traceback" not in result.stderr.str()
