"""The axes of generation in the CastLike family (issue 21): explicit defaults, NaN payloads, vector tails, opset
boundaries; and the faults of CastLike's function body over a faulty Cast."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from generator import axes, dtypes, faults, witness
from generator.families import cast, cast_like as fam
from generator.families.cast import Context, Variant
from generator.families.cast.cases import cases_of
from generator.reference import cast_like_faults

MAX = onnx.defs.onnx_opset_version()
F32, F16, BF16 = (dtypes.get(n) for n in ("float", "float16", "bfloat16"))


@pytest.fixture(scope="module")
def ctx() -> Context:
    return Context(fam.PROFILES["default"], 0, MAX, witness.load("cast_like")["groups"])


def variant(src: str, to: str, saturate=None, round_mode=None) -> Variant:
    s, t = dtypes.get(src), dtypes.get(to)
    return Variant(s, t, saturate, round_mode, fam.first_opset(s, t))


def cases(fn, v: Variant, ctx: Context) -> dict:
    return {c.name: c for c in fn(fam.CASTLIKE, v, ctx)}


def attributes(case) -> dict:
    out = {a.name: onnx.helper.get_attribute_value(a) for a in case.model.graph.node[0].attribute}
    return {k: (x.decode() if isinstance(x, bytes) else x) for k, x in out.items()}


def test_explicit_defaults_write_saturate_and_round_mode_on_decisive_elements(ctx):
    f8 = cases(fam.explicit_defaults, variant("float", "float8e4m3fn", True), ctx)
    case = f8["test_castlike_float32_to_float8e4m3fn_explicit_defaults"]
    assert attributes(case) == {"saturate": 1}
    x = case.inputs[0][0].astype(np.float64)
    assert np.isin([480.0, -480.0, np.inf], x).all() and not np.isin([1.0, 0.5, 448.0], x).any()  # where saturate decides
    e8 = cases(fam.explicit_defaults, variant("float", "float8e8m0", True, "up"), ctx)
    case = e8["test_castlike_float32_to_float8e8m0_explicit_defaults"]
    assert attributes(case) == {"saturate": 1, "round_mode": "up"} and case.meta["opset"] == 24
    assert 3.0 in case.inputs[0][0].astype(np.float64)  # up 4, down 2
    # a variant that writes round_mode="down" gets saturate=1 written beside it
    down = cases(fam.explicit_defaults, variant("float", "float8e8m0", True, "down"), ctx)
    assert attributes(next(iter(down.values()))) == {"saturate": 1, "round_mode": "down"}
    # an opset without the attributes writes nothing
    assert not cases(fam.explicit_defaults, variant("float", "float16"), ctx) or \
        all(c.meta["opset"] >= 19 for c in cases(fam.explicit_defaults, variant("float", "float16"), ctx).values())


def test_explicit_defaults_kill_a_fault_that_reads_a_present_saturate_as_0(ctx):
    case = cases(fam.explicit_defaults, variant("float", "float8e4m3fn", True), ctx)[
        "test_castlike_float32_to_float8e4m3fn_explicit_defaults"]

    def misread(inputs, attrs, opset, types):
        return cast_like_faults.cast_like_node(inputs, dict(attrs, saturate=0) if "saturate" in attrs else attrs,
                                               opset, types)

    fault = faults.Fault("test.present_saturate_as_0", "", misread)
    out = faults.fault_outputs(fault, case.model, case.inputs[0], case.meta)
    assert faults.differs(case.outputs[0], out, [dtypes.get("float8e4m3fn")], case.meta["compare"])


def test_nan_payloads_hold_every_nan_encoding_from_bits(ctx):
    made = cases(fam.nan_payloads, variant("float", "bfloat16"), ctx)
    case = made["test_castlike_float32_to_bfloat16_nan_payloads"]
    labels, want = axes.nan_values(F32)
    assert case.meta["nan_kinds"] == labels
    assert F32.to_bits(case.inputs[0][0]).tolist() == F32.to_bits(want).tolist()
    assert 0x7F800001 in F32.to_bits(case.inputs[0][0]).tolist()  # signalling, payload in the low 16 bits
    assert BF16.isnan(case.outputs[0][0]).all()
    # float32 -> bfloat16 by add-and-shift without a NaN test: a low-payload NaN becomes Inf
    bits = F32.to_bits(case.inputs[0][0]).astype(np.uint64)
    shifted = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    assert not BF16.isnan(BF16.from_bits(shifted)).all()
    # NaN -> integer is undefined: no case; only the default-attribute variant of a pair gets one
    assert not cases(fam.nan_payloads, variant("float", "int8"), ctx)
    assert not cases(fam.nan_payloads, variant("float", "float8e4m3fn", False), ctx)


def test_vector_tails_put_the_decisive_elements_last_in_one_symbolic_model(ctx):
    made = cases(fam.vector_tails, variant("float", "float16"), ctx)
    case = made["test_castlike_float32_to_float16_vector_tails"]
    dim = case.model.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == "n"
    lengths = [x[0].size for x in case.inputs]
    assert lengths == list(axes.tail_lengths(short=True)) == case.meta["lengths"]
    longest = case.inputs[-1][0]
    assert (longest[:8] == 1).all() and F32.isnan(longest[-len(axes.nan_values(F32)[1]):]).all()
    assert not cases(fam.vector_tails, variant("int8", "float16"), ctx)  # not a representative pair


def test_opset_boundaries_of_the_fnuz_row_and_of_each_change(ctx):
    v = variant("float", "float8e4m3fnuz", True)
    assert fam.boundary_opsets(v, MAX) == [23, 25]
    made = cases(fam.boundaries, v, ctx)
    assert {"test_castlike_float32_to_float8e4m3fnuz_inf_opset23", "test_castlike_float32_to_float8e4m3fnuz_inf_opset25",
            "test_castlike_float32_to_float8e4m3fnuz_witness_opset23"} <= set(made)
    at23 = made["test_castlike_float32_to_float8e4m3fnuz_inf_opset23"]
    at25 = made["test_castlike_float32_to_float8e4m3fnuz_inf_opset25"]
    f8 = dtypes.get("float8e4m3fnuz")
    assert f8.isnan(at23.outputs[0][0]).all() and at23.meta["opset"] == 23  # Cast-19..23: NaN
    assert at25.outputs[0][0].astype(np.float64).tolist() == [240.0, -240.0]  # Cast-24+: +-FLT_MAX
    assert fam.boundary_opsets(variant("float", "int4"), MAX) == [22]
    assert fam.boundary_opsets(variant("float", "float8e8m0", True, "down"), MAX) == [25]
    assert fam.boundary_opsets(variant("int8", "int4"), MAX) == []
    groups = witness.load("cast_like")["groups"]
    assert "float->float8e4m3fnuz saturate=1 opset=23" in groups and "float->int4 opset=22" in groups


def test_round_mode_dropped_over_casts_via_float_is_onnxruntimes_castlike():
    """onnxruntime 1.32.0, CastLike-24 int64 -> float8e8m0 round_mode=down: 3 -> 4 (up), 2**53 + 1 -> 2**53 (rounded
    to float32 first, then up): neither round_mode_ignored nor via_float alone."""
    by = faults.by_name("cast_like")
    x = np.array([3, 2**53 + 1], dtype=np.int64)
    e8 = dtypes.get("float8e8m0")
    args = ([x, np.zeros(1, e8.np_dtype)], {"round_mode": "down"}, 24, [dtypes.get("int64"), e8])
    got = lambda name: by[name].fn(*args)[0].astype(np.float64).tolist()  # noqa: E731
    assert got("cast_like.round_mode_ignored_via_float") == [4.0, 2.0**53]
    assert got("cast_like.round_mode_ignored") == [4.0, 2.0**54]
    assert got("cast_like.via_float") == [2.0, 2.0**53]
    p = {"from": "int64", "to": "float8e8m0", "saturate": 1, "round_mode": "down", "opset": 24}
    assert by["cast_like.round_mode_ignored_via_float"].applies(p)
    assert not by["cast_like.round_mode_ignored_via_float"].applies(dict(p, round_mode="up"))


def test_every_fault_says_where_it_was_seen():
    for f in faults.catalogue("cast_like"):
        assert f.seen_in.strip(), f.name


def test_round_mode_down_and_nearest_cases_carry_their_reading():
    """The expectation that CastLike honours round_mode rests on the schema against onnx's own function body: every
    judged case whose expected elements differ from round_mode up names the reading; up and probes do not."""
    ctx = Context(fam.PROFILES["quick"], 0, MAX, {})
    down = [fam.mark_round_mode_reading(c) for c in cast.data_sets(fam.CASTLIKE, variant("float", "float8e8m0", True,
                                                                                          "down"), ctx)]
    node = [c for c in down if c.kind == "node"]
    assert node and all(fam.READING_ROUND_MODE in c.meta.get("reading", "") for c in node)
    assert all("reading" not in c.meta for c in down if c.kind == "probe")
    up = [fam.mark_round_mode_reading(c) for c in cast.data_sets(fam.CASTLIKE, variant("float", "float8e8m0", True,
                                                                                        "up"), ctx)]
    assert not any(fam.READING_ROUND_MODE in c.meta.get("reading", "") for c in up)
    # powers of two only: down gives what up gives, nothing rests on the reading
    one = next(cases_of(fam.CASTLIKE, variant("float", "float8e8m0", True, "down"), "pow2",
                            np.array([1.0, 2.0, 0.5], np.float32), 0, ["edge"]))
    assert fam.READING_ROUND_MODE not in (fam.mark_round_mode_reading(one).meta.get("reading") or "")


def test_tvms_float8_path_comes_from_casts_fault():
    """TVM 0.27's float 8 conversions (measured: float 8 sources read every encoding as a normal number) are Cast's
    cast.float8_bitwise, used through CastLike; no copy of its arithmetic here."""
    f = {x.name: x for x in cast_like_faults.FAULTS}["cast_like.float8_bitwise"]
    e5 = dtypes.get("float8e5m2")
    x = e5.from_bits(np.array([0x00, 0x7C, 0x3C, 0x01]))
    y = f.fn([x, np.zeros(1, np.float32)], {}, 19, [e5, F32])[0]
    assert y.tolist() == [2.0**-15, 65536.0, 1.0, 2.0**-15 * 1.25]
    assert not any("decoded_as_normals" in g.name for g in cast_like_faults.FAULTS)

