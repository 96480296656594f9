"""The ConvertPromoteTypes family: the matrix covers every pair x attributes x ranks, each case says what the
reference says (common type or refusal), the model carries the node and its function body, negative cases are
judged only by native implementations, the promotion table is written with the suite and checked by --check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from generator import cli, dtypes, families
from generator.families import convert_promote_types as fam
from generator.families.convert_promote_types.cases import example_cases
from generator.families.convert_promote_types.variant import SPEC_EXAMPLES, matrix_variants
from generator.family import PROBE_COMPARE, Family
from generator.outcome import Outcome
from generator.reference import convert_promote_types as ref
from generator.serialize import read_case, write_case
from runners.backends.registry import get_backend
from runners.execute import run_case_dataset
from family_cases import generate


@pytest.fixture(scope="module")
def cases():
    return generate(fam, max_opset=28)


def test_the_family_follows_the_contract(cases):
    """FAMILY is a Family named for its module; the reference returns Outcomes (a refused pair raises: it is a
    negative case, no outcome); every case's metadata is stamped by FAMILY, every probe is split's."""
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == fam.__name__.rsplit(".", 1)[1]
    assert (fam.FAMILY.op, fam.FAMILY.domain, fam.FAMILY.spec_file) == (ref.OP_TYPE, ref.DOMAIN, ref.SPEC_FILE)
    assert "case_meta" not in vars(fam) and "_meta" not in vars(fam)  # FAMILY.meta stamps the metadata
    i8, u8 = dtypes.get("int8"), dtypes.get("uint8")
    attrs = dict(promote_unsafe=True, pytorch_scalar_promotion=True)  # S(u8), D(i8) -> i8: 255 out of range
    x0 = np.array([-1, 5], np.int8)
    bad = ref.convert_promote_types(x0, np.array(255, np.uint8), i8, u8, **attrs)
    assert isinstance(bad, Outcome) and bad.reasons == [ref.UNDEF_RANGE]
    assert [(y.dtype, y.shape) for y in bad.outputs] == [(np.int8, (2,)), (np.int8, ())]
    good = ref.convert_promote_types(x0, np.array(5, np.uint8), i8, u8, **attrs)
    assert good.defined and [y.tolist() for y in good.outputs] == [[-1, 5], 5]
    each = ref.convert(np.array([255, 5], np.uint8), u8, i8)
    assert isinstance(each, Outcome) and each.mask().tolist() == [True, False]
    with pytest.raises(ref.PromotionError):
        ref.convert_promote_types(x0, np.array([5], np.uint8), i8, u8)
    for c in cases.values():
        assert (c.meta["family"], c.meta["op"], c.meta["domain"]) == (fam.FAMILY.name, fam.FAMILY.op,
                                                                      fam.FAMILY.domain), c.name
        assert c.meta["spec"]["file"] == fam.FAMILY.spec_file and c.name.startswith(fam.FAMILY.prefix), c.name
        if c.kind == "probe":
            assert c.meta["compare"] == PROBE_COMPARE and c.meta["flags"] == ["probe"], c.name
            assert c.name.endswith("_probe") and c.outputs is None and c.meta["undefined"], c.name


def test_every_pair_attribute_and_shape_has_a_case(cases):
    n = 0
    for v in matrix_variants():
        n += 1
        d = v.decision
        if d.common is None:
            assert cases[v.name].kind == "negative", v.name
        else:
            assert cases[v.name].kind == "node", v.name
            assert cases[v.name].meta["common_type"] == d.common.name
    assert n == len(ref.spec_types()) ** 2 * 4 * 4
    for v in fam.target_variants():
        assert cases[v.name].kind == "node" and cases[v.name].meta["common_type_openvino"] == v.target


def test_examples_are_cases_with_the_spec_result(cases):
    for what, a, b, ranks, attrs, result in SPEC_EXAMPLES:
        c = cases[f"{fam.FAMILY.prefix}_example_{what}"]
        if result is None:
            assert c.kind == "negative" and c.meta["phase"] == "prepare"
        else:
            assert c.kind == "node" and c.meta["common_type"] == ref.element_type(result).name
        node = c.model.graph.node[0]
        assert sorted(a.name for a in node.attribute) == sorted(attrs)  # unnamed attributes keep their defaults
    xml = cases[f"{fam.FAMILY.prefix}_example_xml2_int16_uint32"]
    assert [x.shape for x in xml.inputs[0]] == [(256, 56), (3,)]
    assert xml.outputs[0][0].dtype == np.int64


def test_node_cases_hold_the_reference_values_and_types(cases):
    for c in cases.values():
        if c.kind != "node":
            continue
        t0, t1 = (dtypes.get(c.meta["params"][k]) for k in ("input_0", "input_1"))
        common = dtypes.get(c.meta["common_type"])
        for ins, outs in zip(c.inputs, c.outputs):
            for x, t, y in zip(ins, (t0, t1), outs):
                out = ref.convert(x, t, common)
                want = out.outputs[0]
                assert out.defined, c.name
                assert y.dtype == common.np_dtype and y.shape == x.shape
                assert (common.to_bits(y) == common.to_bits(want)).all(), c.name


def test_probes_hold_the_undefined_values(cases):
    probes = [c for c in cases.values() if c.kind == "probe"]
    assert probes
    for c in probes:
        t0, t1 = (dtypes.get(c.meta["params"][k]) for k in ("input_0", "input_1"))
        common = dtypes.get(c.meta["common_type"])
        undefined = 0
        for ins in c.inputs:
            for x, t in zip(ins, (t0, t1)):
                undefined += int(ref.convert(x, t, common).mask().sum())
        assert undefined and c.meta["undefined"] == [ref.UNDEF_RANGE], c.name


def test_the_model_is_the_node_and_a_function_of_two_casts(cases):
    c = cases[f"{fam.FAMILY.prefix}_uint64_int8_dim_dim_unsafe_target_f64"]
    onnx.checker.check_model(c.model)
    node = c.model.graph.node[0]
    assert (node.domain, node.op_type) == (ref.DOMAIN, ref.OP_TYPE)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert attrs == {"promote_unsafe": 1, "pytorch_scalar_promotion": 0, "u64_integer_promotion_target": b"f64"}
    assert {(o.domain, o.version) for o in c.model.opset_import} == {("", 13), (ref.DOMAIN, 14)}
    (f,) = c.model.functions
    assert [(n.op_type, n.attribute[0].i) for n in f.node] == [("Cast", onnx.TensorProto.DOUBLE)] * 2
    assert c.model.ir_version >= 9  # function attributes with defaults
    assert {a.name: onnx.helper.get_attribute_value(a) for a in f.attribute_proto} == {
        "promote_unsafe": 0, "pytorch_scalar_promotion": 0, "u64_integer_promotion_target": b"f32"}
    # a float8 common type: Cast without saturation (the reference's conversion), at Cast-19 or later
    f8 = cases[f"{fam.FAMILY.prefix}_int4_float8e5m2_dim_dim_safe"].model
    assert all(a.name != "saturate" or a.i == 0 for n in f8.functions[0].node for a in n.attribute)
    assert any(a.name == "saturate" for n in f8.functions[0].node for a in n.attribute)
    assert min(o.version for o in f8.opset_import if o.domain == "") >= 21  # int4


def test_negative_cases(cases):
    c = cases[f"{fam.FAMILY.prefix}_int8_uint8_dim_dim_safe"]
    assert c.kind == "negative" and c.inputs == [] and c.meta["phase"] == "prepare"
    assert c.meta["error"] == ref.ERR_WIDENING and c.meta["unsafe_common_type"] == "int16"
    assert c.meta["native"]["ops"] == [f"{ref.DOMAIN}::{ref.OP_TYPE}"]
    assert c.model.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.INT16
    s = cases[f"{fam.FAMILY.prefix}_int64_uint8_scalar_dim_safe_pytorch"]
    assert s.kind == "negative" and s.meta["error"] == ref.ERR_LOWER_RANGE
    assert [len(i.type.tensor_type.shape.dim) for i in s.model.graph.input] == [0, 2]


@pytest.fixture(scope="module")
def written(tmp_path_factory, cases):
    root = tmp_path_factory.mktemp("cpt")
    names = [f"{fam.FAMILY.prefix}_int8_uint8_dim_dim_safe", f"{fam.FAMILY.prefix}_int8_uint8_dim_dim_unsafe",
             f"{fam.FAMILY.prefix}_int8_uint8_scalar_dim_unsafe", f"{fam.FAMILY.prefix}_int64_uint8_scalar_dim_unsafe_pytorch_probe"]
    for n in names:
        write_case(cases[n], root)
    return {n: read_case(root / cases[n].kind / n) for n in names}


@pytest.mark.parametrize("backend, verdict", [("opconform", "pass"), ("onnxruntime", "unsupported"),
                                              ("onnx-reference", "unsupported")])
def test_negative_cases_are_judged_only_natively(written, backend, verdict):
    b = get_backend(backend)
    r = run_case_dataset(b, written[f"{fam.FAMILY.prefix}_int8_uint8_dim_dim_safe"], 0, "strict", {})
    assert r.verdict == verdict, r.message
    if verdict == "unsupported":
        assert "not applicable" in r.message and ref.OP_TYPE in r.message
    # the value part runs through the function body everywhere
    case = written[f"{fam.FAMILY.prefix}_int8_uint8_dim_dim_unsafe"]
    assert run_case_dataset(b, case, 0, "strict", {}).verdict == "pass"
    probe = written[f"{fam.FAMILY.prefix}_int64_uint8_scalar_dim_unsafe_pytorch_probe"]
    assert run_case_dataset(b, probe, 0, "strict", {}).verdict == "probe"


def test_opconform_scalar_datasets(written):
    case = written[f"{fam.FAMILY.prefix}_int8_uint8_scalar_dim_unsafe"]
    assert case.n_datasets == 3 and all(ins[0].shape == () for ins in case.inputs)
    b = get_backend("opconform")
    assert all(run_case_dataset(b, case, i, "strict", {}).verdict == "pass" for i in range(case.n_datasets))


def test_quick_profile_is_smaller_and_deterministic():
    def names(profile):
        out = []
        for unit in fam.work(profile, 0, 28):
            out += [(c.name, c.model.SerializeToString(deterministic=True)) for c in unit()]
        return out

    quick = names("quick")
    assert quick == names("quick")
    assert 1000 < len(quick) < 2000


def test_max_opset_leaves_out_newer_function_bodies():
    kept = [c for unit in fam.work("quick", 0, 13) for c in unit()]
    assert kept and all(c.meta["opset"] <= 13 for c in kept)
    assert not any("float8" in c.name or "int4" in c.name for c in kept)


def test_promotion_table_is_written_and_checked(tmp_path, capsys, monkeypatch):
    text = fam.promotion_table()
    names = list(ref.SPEC_TYPE_NAMES)
    assert text.count("| **f16** |") == 4  # four tables: safe / unsafe, without / with pytorch scalars
    row = next(ln for ln in text.splitlines() if ln.startswith("| **i8** |"))
    assert row.split(" | ")[names.index("u8") + 1] == "**W**" and row.split(" | ")[names.index("f16") + 1] == "f16"
    out = tmp_path / "suite"
    args = ["--family", "convert_promote_types", "--profile", "quick"]
    assert "convert_promote_types" in families.FAMILIES
    # the examples only, to keep the test short: the table is what is checked here
    monkeypatch.setattr(fam, "work", lambda profile, seed, max_opset: [
        lambda: example_cases(fam.Values(fam.PROFILES[profile], seed), seed)])
    assert cli.main([str(out), *args]) == 0
    table = out / fam.TABLE_PATH
    assert table.read_text(encoding="utf-8") == fam.promotion_table()
    assert cli.main([str(out), "--check", *args]) == 0
    table.write_text("edited\n")
    capsys.readouterr()
    assert cli.main([str(out), "--check", *args]) == 1
    assert fam.TABLE_PATH in capsys.readouterr().out
    assert Path(out / "manifest.json").exists()
