"""The CastLike family (generator/families/cast_like.py), its reference (generator/reference/cast_like.py: Cast with
the type of target_type), its fault models (Cast's, as CastLike nodes) and its witness catalogue (Cast's, group by
group): every pair and attribute CastLike accepts is a variant at its first opset, target_type's shape and values
play no part, the suite holds edges, probes and witnesses, and every fault that can differ is killed."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from generator import dtypes, reference, witness
from generator.families import cast_like as fam
from generator.families.cast.variant import attribute_options
from generator.family import PROBE_COMPARE, Family
from generator.interpret import compile_model, run_program
from generator.kill_matrix import KillMatrix
from generator.outcome import Outcome
from generator.reference import cast as cast_ref
from generator.reference import cast_faults, cast_like_faults
from generator.reference.cast_like import cast_like
from generator.witness import cast_like as search
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset


@pytest.fixture(scope="module")
def cases():
    return [c for unit in fam.work("default", 0, onnx.defs.onnx_opset_version()) for c in unit()]  # gen-cases default


def _by_name(cases):
    return {c.name: c for c in cases}


def test_the_family_follows_the_contract():
    assert isinstance(fam.FAMILY, Family) and fam.FAMILY.name == fam.__name__.rsplit(".", 1)[1] == "cast_like"
    assert fam.FAMILY.op == "CastLike" and fam.FAMILY.prefix == "test_castlike"
    x = np.array([1.5, np.nan, 300.0], dtype=np.float32)
    out = cast_like(x, np.zeros((2, 3), np.int8), "float", "int8")
    assert isinstance(out, Outcome) and out.mask().tolist() == [False, True, True]
    assert reference.lookup("ai.onnx", "CastLike") is reference.lookup("", "CastLike") is not None
    assert list(fam.CATALOGUE) == ["data_sets", "fnuz_inf", "negative_nan", "witness", "explicit_defaults",
                                   "nan_payloads", "vector_tails", "boundaries"]


def test_the_opsets_are_every_castlike_schema():
    want = sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == "CastLike"})
    assert list(fam.OPSETS) == want and fam.MIN_OPSET == 15


def test_every_pair_and_attribute_castlike_accepts_is_a_variant_at_its_first_opset():
    seen = {(v.src.name, v.to.name, v.saturate, v.round_mode): v.opset for v in fam.variants(fam.NEWEST)}
    for opset in reversed(fam.OPSETS):
        schema = onnx.defs.get_schema("CastLike", opset)
        t1, t2 = ({t[len("tensor("):-1] for t in c.allowed_type_strs} for c in schema.type_constraints)
        for a in t1:
            for b in t2:
                for sat, mode in attribute_options(dtypes.get(b)):
                    assert seen[(a, b, sat, mode)] <= opset, (a, b, sat, mode)
    for (a, b, *_), opset in seen.items():  # no earlier CastLike takes the pair
        earlier = [o for o in fam.OPSETS if o < opset]
        for o in earlier:
            schema = onnx.defs.get_schema("CastLike", o)
            t1, t2 = ({t[len("tensor("):-1] for t in c.allowed_type_strs} for c in schema.type_constraints)
            assert not (a in t1 and b in t2), (a, b, o)
    assert not any(b.startswith("float6") for _, b, *_ in seen)  # CastLike has no float6
    assert ("float", "float8e8m0", False, "nearest") in seen and seen[("float", "float16", None, None)] == 15


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (1, 1, 4)])
def test_the_target_type_gives_only_its_type(shape):
    """The reference and the CastLike node ignore target_type's shape and values: Cast to its type."""
    x = np.array([0.5, 1.5, 2.5, -0.0, np.inf, np.nan, 1e6, 448.0, 464.0], dtype=np.float32)
    for to in ("float8e4m3fn", "int4", "float16", "string", "bool"):
        t = dtypes.get(to)
        n = int(np.prod(shape))
        target = np.array(["z"] * n, dtype=object).reshape(shape) if t.kind == "string" else \
            t.from_bits(np.arange(n) % 2).reshape(shape)
        want = cast_ref.cast_outcome(x, "float", to, saturate=False, opset=21)
        got = cast_like(x, target, "float", to, saturate=False, opset=21)
        assert got.reasons == want.reasons and np.array_equal(got.mask(), want.mask())
        node = reference.lookup("", "CastLike")([x, target], {"saturate": 0}, 21,
                                                [dtypes.get("float"), t])[0]
        ok = ~want.mask()
        assert node.shape == x.shape
        if t.kind == "string":
            assert list(node[ok]) == list(want.outputs[0][ok])
        else:
            assert np.array_equal(t.to_bits(node[ok]), t.to_bits(want.outputs[0][ok]))


def test_attributes_are_read_at_their_opsets():
    """saturate from CastLike-19, round_mode from CastLike-24 (before: their defaults), as Cast does."""
    node = reference.lookup("", "CastLike")
    x = np.array([1000.0, 3.0], dtype=np.float32)
    e8m0 = dtypes.get("float8e8m0")
    f8 = dtypes.get("float8e4m3fn")
    y = node([x, f8.from_bits(np.array([0]))], {"saturate": 0}, 19, [dtypes.get("float"), f8])[0]
    assert np.isnan(y[0].astype(np.float64)) and float(y[1]) == 3.0
    down = node([x, e8m0.from_bits(np.array([1]))], {"round_mode": "down"}, 24, [dtypes.get("float"), e8m0])[0]
    assert down.astype(np.float64).tolist() == [512.0, 2.0]


def test_target_type_never_has_the_input_shape_and_the_models_check(cases):
    shapes = set()
    for c in cases:
        x, target = c.inputs[0]
        assert target.shape in fam.TARGET_SHAPES and target.shape != x.shape, c.name
        assert target.dtype == dtypes.get(c.meta["params"]["to"]).np_dtype or target.dtype == object
        shapes.add(target.shape)
        for data in c.inputs:
            assert data[1].shape == target.shape
    assert shapes == set(fam.TARGET_SHAPES)
    for c in cases[::97]:
        onnx.checker.check_model(c.model, full_check=True)
        node = c.model.graph.node[0]
        assert node.op_type == "CastLike" and list(node.input) == ["input", "target_type"]
        assert "to" not in {a.name for a in node.attribute}


def test_node_cases_hold_only_defined_inputs_and_probes_only_undefined(cases):
    kinds = set()
    for c in cases:
        assert c.meta["family"] == "cast_like" and c.meta["op"] == "CastLike" and c.name.startswith("test_castlike_")
        p = c.meta["params"]
        for inputs, i in zip(c.inputs, range(len(c.inputs))):
            program = compile_model(c.model)
            got = run_program(program, inputs)[0]
            want = cast_ref.cast_outcome(inputs[0], p["from"], p["to"], saturate=bool(p.get("saturate", 1)),
                                         round_mode=p.get("round_mode", "up"), opset=c.meta["opset"])
            if c.kind == "node":
                assert want.defined, c.name
                to = dtypes.get(p["to"])
                same = [str(a) == str(b) for a, b in zip(got.ravel(), c.outputs[i][0].ravel())] \
                    if to.kind == "string" else to.to_bits(got) == to.to_bits(c.outputs[i][0])
                assert np.all(same), c.name
            else:
                assert want.mask().all() and set(want.reasons) <= set(c.meta["undefined"]), c.name
                assert c.meta["compare"] == PROBE_COMPARE
        kinds.add(c.kind)
    assert kinds == {"node", "probe"}


def test_every_variant_has_its_edges_witnesses_and_rows(cases):
    by = _by_name(cases)
    for v in fam.variants(fam.NEWEST):
        base = f"test_castlike_{v.label}"
        assert f"{base}_edge" in by or f"{base}_probe" in by, base
    assert by["test_castlike_float32_to_float8e4m3fnuz_inf_opset19"].meta["opset"] == 19
    assert by["test_castlike_float32_to_float8e4m3fnuz_inf_opset24"].meta["semantics"].startswith("CastLike-24")
    assert by["test_castlike_float32_to_float8e5m2_nosat_negative_nan"].meta["compare"]["nan_sign"] is True
    assert by["test_castlike_string_to_float32_extreme_exponent"].meta["flags"] == ["edge"]
    assert by["test_castlike_float32_to_int4_witness"].meta["opset"] == 21
    assert not any(c.name.endswith(("_exhaustive", "_random", "_3d")) for c in cases)  # fewer data than Cast


def test_the_witness_catalogue_is_casts_group_by_group():
    """The committed catalogue is what generator/witness/cast_like.py derives from Cast's (regenerate it with
    gen-cases --find-witnesses --family cast_like when Cast's changes)."""
    committed = witness.load("cast_like")["groups"]
    assert committed == search.find(onnx.defs.onnx_opset_version(), 0)  # gen-cases' default --max-opset
    cast_groups = witness.load("cast")["groups"]
    for key, entry in committed.items():
        source = cast_groups[entry["same_as"]]
        assert {k: v for k, v in source["params"].items() if k != "opset"} == \
            {k: v for k, v in entry["params"].items() if k != "opset"}
        assert source["params"]["opset"] <= entry["params"]["opset"]
        assert {n.replace("cast_like.", "cast.", 1) for n in entry["faults"]} == set(source["faults"])


def test_the_faults_are_casts_as_castlike_nodes():
    n = len(cast_faults.FAULTS)
    assert [f.name.replace("cast_like.", "cast.", 1) for f in cast_like_faults.FAULTS[:n]] == \
        [f.name for f in cast_faults.FAULTS]
    assert cast_like_faults.FAULTS[n] is cast_like_faults.ROUND_MODE_IGNORED
    assert all(f.name.startswith("cast_like.round_mode_ignored_") for f in cast_like_faults.FAULTS[n + 1:])
    x = np.array([0.5, 1.5, 2.5, 17.0, 464.0, -3.25], dtype=np.float32)
    f8 = dtypes.get("float8e4m3fn")
    for like, orig in zip(cast_like_faults.FAULTS, cast_faults.FAULTS):
        a = like.fn([x, np.zeros((2, 2), np.uint8).view(f8.np_dtype)], {"saturate": 0}, 21, [dtypes.get("float"), f8])
        b = orig.fn([x], {"to": f8.onnx, "saturate": 0}, 21, [dtypes.get("float")])
        assert np.array_equal(f8.to_bits(a[0]), f8.to_bits(b[0])), like.name


def test_round_mode_ignored_is_onnxs_function_body():
    """onnx's CastLike-24 / 25 function body is Cast <to, saturate>: what the fault does."""
    schema = onnx.defs.get_schema("CastLike", fam.NEWEST)
    node = onnx.helper.make_node("CastLike", ["input", "target_type"], ["output"], round_mode="down", saturate=0)
    types = [onnx.helper.make_tensor_type_proto(t, [1]).SerializeToString()
             for t in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT8E8M0)]
    body = onnx.FunctionProto.FromString(schema.get_context_dependent_function(node.SerializeToString(), types))
    (cast,) = body.node
    assert cast.op_type == "Cast" and {a.name for a in cast.attribute} == {"to", "saturate"}
    e8m0, f = dtypes.get("float8e8m0"), dtypes.get("float")
    x = np.array([3.0, 1.25], dtype=np.float32)
    y = cast_like_faults.ROUND_MODE_IGNORED.fn([x, e8m0.from_bits(np.array([0]))], {"round_mode": "down"}, 24, [f, e8m0])
    assert y[0].astype(np.float64).tolist() == [4.0, 2.0]  # up, not down


@pytest.mark.parametrize("src", ["bool", "int2", "uint2", "int4", "float4e2m1", "float8e8m0", "float8e4m3fn"])
def test_round_mode_ignored_equivalences_hold_on_every_input(src):
    s = dtypes.get(src)
    x = s.all_values() if s.kind != "bool" else np.array([False, True])
    to = dtypes.get("float8e8m0")
    for sat in (0, 1):
        for mode in ("down", "nearest"):
            params = {"from": src, "to": "float8e8m0", "saturate": sat, "round_mode": mode, "opset": 25}
            want = cast_ref.cast_outcome(x, s, to, saturate=bool(sat), round_mode=mode)
            got = cast_like_faults.ROUND_MODE_IGNORED.fn([x, to.from_bits(np.array([1]))], {
                "saturate": sat, "round_mode": mode}, 25, [s, to])[0]
            same = (want.mask() | to.same_values(want.outputs[0], got)).all()
            assert same == (cast_like_faults.ROUND_MODE_IGNORED.equivalent(params) is not None), (src, sat, mode)


def test_every_fault_that_can_differ_is_killed(cases):
    km = KillMatrix(["cast_like"])
    for c in cases:
        km.add(c)
    m = km.matrix()["cast_like"]
    survivors = [(g, f) for g, row in m["groups"].items() for f, e in row.items() if e["status"] == "survived"]
    assert not survivors, survivors[:5]
    assert m["counts"]["killed"] > 1000
    # every group of the catalogue has node cases, but the two pairs whose every input is undefined (probes only)
    assert set(witness.load("cast_like")["groups"]) - set(m["groups"]) == {"bool->string opset=15",
                                                                           "string->bool opset=15"}


def test_the_opconform_backend_passes_a_sample(cases, tmp_path):
    from generator.serialize import read_case, write_case

    for i, c in enumerate(cases[::41]):
        write_case(c, tmp_path / str(i))
        loaded = read_case(tmp_path / str(i) / c.kind / c.name)
        verdict = run_case_dataset(OpconformBackend(), loaded, 0, "strict", {}).verdict
        assert verdict == ("pass" if c.kind == "node" else "probe"), c.name


def test_the_family_is_modest():
    """Fewer data than Cast: a few cases per variant."""
    n = sum(1 for unit in fam.work("default", 0, fam.NEWEST) for _ in unit())
    assert n < 3 * len(list(fam.variants(fam.NEWEST)))
