"""--shapes static|dynamic (runners/input_modes.py, issue 20 item 4): every dimension of the graph's inputs and
outputs unknown, ranks kept, the expected outputs unchanged; a negative case keeps its declared shapes; the mode
through the real runner and recorded in the results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest

from generator.serialize import read_case
from runners.execute import run_case_dataset
from runners.input_modes import RunMode, baked_tensors, build_model

pytest_plugins = ["pytester"]
CASES = Path(__file__).resolve().parent.parent / "cases"
QLINEARCONV = "test_qlinearconv_auto_pad_notset"


def _dims(values) -> list[list]:
    return [[(d.dim_param or None, d.dim_value if d.HasField("dim_value") else None)
             for d in v.type.tensor_type.shape.dim] for v in values]


def test_every_dimension_is_unknown_and_named_apart():
    case = read_case(CASES / "node" / QLINEARCONV)
    model = build_model(case.model, {}, True)
    onnx.checker.check_model(model)
    for before, after in ((case.model.graph.input, model.graph.input), (case.model.graph.output, model.graph.output)):
        assert [len(d) for d in _dims(after)] == [len(d) for d in _dims(before)]  # ranks kept
    names = [p for dims in _dims(model.graph.input) + _dims(model.graph.output) for p, v in dims]
    assert all(p and v is None for dims in _dims(model.graph.input) for p, v in dims)
    assert len(names) == len(set(names)) and any(names)  # one name each: no equality declared
    assert _dims(case.model.graph.input)[0][0][1] is not None  # the case's own model untouched


def test_dynamic_with_initializers_leaves_the_initializers_shaped():
    case = read_case(CASES / "node" / QLINEARCONV)
    mode = RunMode("initializers", "dynamic")
    model = build_model(case.model, baked_tensors(case.model, list(case.inputs[0]), mode), True)
    assert len(model.graph.input) == 1 and all(p for p, _ in _dims(model.graph.input)[0])
    shapes = {t.name: list(t.dims) for t in model.graph.initializer}
    names = [v.name for v in case.model.graph.input]
    assert shapes == {n: list(x.shape) for n, x in zip(names[1:], case.inputs[0][1:])}


@pytest.mark.parametrize("backend", ["opconform", "onnxruntime"])
def test_dynamic_shapes_are_judged_against_the_same_outputs(backend):
    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    from runners.backends.registry import get_backend

    b = get_backend(backend, None)
    case = read_case(CASES / "node" / QLINEARCONV)
    prepared: list = []

    class Seeing:
        name = b.name

        def version(self):
            return b.version()

        def prepare(self, model, c):
            prepared.append(model)
            return b.prepare(model, c)

        def run(self, p, inputs):
            return b.run(p, inputs)

    cache: dict = {}
    results = [run_case_dataset(Seeing(), case, i, "strict", cache, RunMode(shapes="dynamic"))
               for i in range(case.n_datasets)]
    assert [r.verdict for r in results] == ["pass"] * case.n_datasets
    assert results[0].settings.get("shapes") == "dynamic"
    assert len(prepared) == 1 and all(p for p, _ in _dims(prepared[0].graph.input)[0])


def test_a_negative_case_keeps_its_declared_shapes():
    case = read_case(CASES / "negative" / "test_qlinearconv_negative_bias_length")
    seen: list = []

    class Refusing:
        name = "refusing"

        def version(self):
            return "1"

        def prepare(self, model, c):
            seen.append(model)
            raise RuntimeError("refused")

        def run(self, p, inputs):
            raise AssertionError("never run")

    r = run_case_dataset(Refusing(), case, 0, "strict", {}, RunMode(shapes="dynamic"))
    assert r.verdict == "pass"
    assert _dims(seen[0].graph.input) == _dims(case.model.graph.input)


def test_the_runner_records_dynamic_shapes(pytester):
    root = pytester.path / "s"
    for rel in ("node/" + QLINEARCONV, "node/test_cast_float32_to_float8e4m3fn_witness",
                "graph/test_layout_conv_reshape_fully_connected"):
        shutil.copytree(CASES / rel, root / rel)
    report = pytester.path / "r.json"
    result = pytester.runpytest(str(root), "--backend", "opconform", "--shapes", "dynamic", "--report", str(report))
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["opconform: settings shapes=dynamic*"])
    data = json.loads(report.read_text())
    assert data["backend"]["settings"] == {"shapes": "dynamic"}
    assert {r["settings"].get("shapes") for r in data["records"]} == {"dynamic"}


def test_an_unknown_shape_mode_is_a_usage_error(pytester):
    (pytester.path / "s").mkdir()
    result = pytester.runpytest("s", "--backend", "opconform", "--shapes", "ragged")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stderr.str()
