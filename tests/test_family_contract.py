"""The family contract (generator/family.py, generator/outcome.py) and discovery by module name."""

import numpy as np
import pytest

from generator import families, reference
from generator.case import node_model
from generator.dtypes import get
from generator.family import NEGATIVE_COMPARE, PROBE_COMPARE, Catalogue, Family, probe_meta, split, split_elements
from generator.outcome import Outcome

FAM = Family("demo", "Demo", "Demo.txt")


def _model(inputs):
    f = get("float")
    return node_model("Relu", [("x", f, inputs[0].shape)], [("y", f, inputs[0].shape)], {}, 13)


META = FAM.meta(opset=13, clause="c", compare={"mode": "exact"}, flags=["edge"], seed=0, params={"what": "w"})


def test_an_outcome_names_its_undefined_reasons_and_where():
    y = np.zeros(4, np.float32)
    assert Outcome.of([y]).defined and Outcome.of([y]).reasons == []
    whole = Outcome.of([y], "zero range")
    assert not whole.defined and whole.reasons == ["zero range"] and whole.mask().all()
    each = Outcome.by_element([y], np.array(["", "nan", "", "big"]))
    assert each.reasons == ["big", "nan"]
    assert each.mask().tolist() == [False, True, False, True]
    # a reason whose mask is empty leaves nothing undefined
    assert Outcome((y,), {"never": np.zeros(4, bool)}).defined


def test_split_puts_defined_sets_in_the_node_case_and_the_rest_in_the_probe():
    sets = [[np.full(2, v, np.float32)] for v in (1.0, 2.0, 3.0)]
    outs = [Outcome.of(s) for s in sets[:1]] + [Outcome.of(sets[1], "b"), Outcome.of(sets[2], "a")]
    node, probe = split("test_demo_w", sets, outs, _model, META)
    assert node.kind == "node" and node.name == "test_demo_w" and len(node.inputs) == 1
    assert node.meta["family"] == "demo" and node.meta["op"] == "Demo" and node.meta["flags"] == ["edge"]
    assert probe.kind == "probe" and probe.name == "test_demo_w_probe" and len(probe.inputs) == 2
    assert probe.outputs is None and probe.meta["undefined"] == ["a", "b"]
    assert probe.meta["compare"] == PROBE_COMPARE and probe.meta["flags"] == ["probe"]
    # a name that already says probe is not doubled; nothing defined gives no node case
    (only,) = split("test_demo_x_probe", sets[1:], outs[1:], _model, META)
    assert only.name == "test_demo_x_probe"


def test_split_derives_the_probe_metadata_from_the_node_case_metadata():
    """Given the node case's metadata (a dict), split stamps the probe's: flags, PROBE_COMPARE, the reasons;
    no reading (a probe expects nothing); the rest as the node's."""
    sets = [[np.full(2, v, np.float32)] for v in (1.0, 2.0, 3.0)]
    outs = [Outcome.of(sets[0]), Outcome.of(sets[1], "b"), Outcome.of(sets[2], "a")]
    meta = FAM.meta(opset=13, clause="c", compare={"mode": "exact"}, flags=["edge"], seed=7, params={"what": "w"},
                    reading="a reading", extra_field=1)
    node, probe = split("test_demo_w", sets, outs, _model, meta)
    assert node.meta == meta and node.meta is not meta
    assert probe.meta == probe_meta(meta, ["b", "a"])
    want = {k: v for k, v in meta.items() if k != "reading"}
    want.update(flags=["probe"], compare=PROBE_COMPARE, undefined=["a", "b"])
    assert probe.meta == want and "reading" not in probe.meta and probe.meta["extra_field"] == 1
    (hunt,) = split("test_demo_h", sets[1:2], outs[1:2], _model, meta, probe_flags=("hunt", "probe"))
    assert hunt.meta["flags"] == ["hunt", "probe"]


def test_a_negative_case_must_be_refused():
    model = _model([np.zeros(2, np.float32)])
    case = FAM.negative("test_demo_bad", model, [], phase="prepare", opset=13, clause="c", flags=["negative"], seed=0,
                        params={"what": "bad"}, error="why not")
    assert case.kind == "negative" and case.outputs is None and case.inputs == []
    assert case.meta["compare"] == NEGATIVE_COMPARE and case.meta["phase"] == "prepare"
    assert case.meta["error"] == "why not" and case.meta["family"] == "demo"


def test_group_faults_gives_proofs_witnesses_or_nothing():
    from types import SimpleNamespace

    from generator.witness import group_faults

    def fault(name, proof=None):
        return SimpleNamespace(name=name, equivalent=lambda params: proof if params["opset"] == 13 else None)

    faults = [fault("f.same", "same rounding"), fault("f.found"), fault("f.none")]
    asked = []

    def witnesses_of(f):
        asked.append(f.name)
        return ("construction", [[1, 2]]) if f.name == "f.found" else ("search", [])

    got = group_faults(faults, {"opset": 13}, witnesses_of)
    assert got == {"f.same": {"equivalent": "same rounding"},
                   "f.found": {"how": "construction", "witnesses": [[1, 2]]}}
    assert asked == ["f.found", "f.none"]


def test_split_elements_keeps_defined_elements_with_their_outputs():
    x = np.arange(4, dtype=np.float32)
    ok_x, ok, bad_x, reasons = split_elements(x, Outcome.by_element([x * 2], np.array(["", "r", "", ""])))
    assert ok_x.tolist() == [0, 2, 3] and ok.outputs[0].tolist() == [0, 4, 6]
    assert bad_x.tolist() == [1] and reasons == ["r"]


def test_a_catalogue_registers_named_functions_once():
    cat = Catalogue("test_demo_")

    @cat
    def ties():
        return 1

    assert list(cat) == ["test_demo_ties"] and cat["test_demo_ties"]() == 1
    with pytest.raises(ValueError, match="two catalogue entries"):
        cat(ties)

    @cat.named("4d")
    def four():
        return 4

    cat.add("loop_1", lambda: 5)
    assert list(cat) == ["test_demo_ties", "test_demo_4d", "test_demo_loop_1"] and cat["test_demo_4d"]() == 4
    with pytest.raises(ValueError, match="two catalogue entries"):
        cat.add("4d", four)


def test_families_and_references_are_found_by_module_name():
    assert set(families.FAMILIES) >= {"cast", "cast_like", "convert_promote_types", "dequantize_linear",
                                      "dynamic_quantize_linear", "layout", "qlinear_conv", "quantize_linear"}
    ops = {op for _, op in reference.references()}
    assert {"Cast", "CastLike", "DynamicQuantizeLinear", "QLinearConv", "ConvertPromoteTypes", "Conv", "MaxPool",
            "QuantizeLinear", "DequantizeLinear"} <= ops
    assert reference.lookup("ai.onnx", "Cast") is reference.lookup("", "Cast")


@pytest.mark.parametrize("name", sorted(families.FAMILIES))
def test_every_family_declares_itself_on_the_contract(name):
    """FAMILY names its module; PROFILES, work and the lowest opset are there; its named case functions are a
    Catalogue called CATALOGUE; no family keeps its own metadata stamping (the copies the contract replaced)."""
    module = families.load(name)
    assert isinstance(module.FAMILY, Family) and module.FAMILY.name == name
    assert set(families.PROFILES) <= set(module.PROFILES)
    assert callable(module.work)
    assert isinstance(getattr(module, "MIN_OPSET", getattr(module, "OPSET", None)), int)
    assert not hasattr(module, "_meta") and "case_meta" not in vars(module)
    assert isinstance(module.CATALOGUE, Catalogue) and module.CATALOGUE, "its named case functions: CATALOGUE"
    grid = getattr(module, "GRID", None)  # the report's grid: (row parameter, column parameter, table parameters)
    assert grid is None or (len(grid) == 3 and all(isinstance(k, str) for k in grid[:2])
                            and isinstance(grid[2], tuple)), grid


def test_no_module_reads_cast_through_its_tuple_api():
    """generator/ and runners/ read Cast under the reference contract (cast_outcome / explain); cast() and
    cast_explained() (arrays y, why) are left to tests."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    # the reference module under the names the project imports it as (memoryview.cast is not Cast)
    call = re.compile(r"\b(?:cast|cast_ref|ref)\.cast\(|\bcast_explained\(|from generator\.reference\.cast import [^\n]*\bcast\b")
    found = [f"{p.relative_to(root)}:{n}" for d in ("generator", "runners", "scripts")
             for p in sorted((root / d).rglob("*.py")) if p != root / "generator" / "reference" / "cast.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if call.search(line)]
    assert not found, found


def test_every_committed_case_is_named_and_stamped_by_its_family():
    import json
    from pathlib import Path

    manifest = json.loads((Path(__file__).resolve().parents[1] / "cases" / "manifest.json").read_text())
    assert {e["family"] for e in manifest["cases"]} == set(families.FAMILIES)
    for e in manifest["cases"]:
        prefixes = families.load(e["family"]).FAMILY.case_prefixes
        assert any(e["name"].startswith(p + "_") for p in prefixes), e["name"]
