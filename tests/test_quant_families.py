"""The DynamicQuantizeLinear and QLinearConv families: every case the issue lists exists and checks what
its name says (ties are ties, SAME paddings have the named parity, per-channel values are distinct ...),
node cases hold only defined data and probes only undefined, negative cases are refused at prepare, the
compare specs give the two tiers, generation is deterministic, and our backend passes every case."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from generator import sampling
from generator.families import dynamic_quantize_linear as dql
from generator.family import PROBE_COMPARE, Catalogue, Family, probe_name
from generator.outcome import Outcome
from generator.families import qlinear_conv as qlc
from generator.reference import dynamic_quantize_linear as dql_ref
from generator.reference import qlinear_conv as qlc_ref
from generator.serialize import case_files, read_case, write_case
from runners.backends.registry import get_backend
from runners.compare import resolve_spec
from runners.execute import run_case_dataset
from family_cases import generate, opconform_results

F32 = np.float32


def _generate(module, profile: str = "default", seed: int = 0) -> dict:
    return generate(module, profile, seed)


@pytest.fixture(scope="module")
def dql_cases():
    return _generate(dql)


@pytest.fixture(scope="module")
def qlc_cases():
    return _generate(qlc)


# ---------------------------------------------------------------------------------------------
# DynamicQuantizeLinear
# ---------------------------------------------------------------------------------------------
def test_dql_catalogue_is_complete(dql_cases):
    want = ["mixed", "all_positive", "all_negative", "single_element", "scalar", "4d", "zero_point_ties",
            "zero_point_near_ties", "y_ties", "y_near_ties", "range_near_flt_max", "range_overflow",
            "range_smallest_normal", "scale_subnormal", "large_random", "length2_random", "length7_random",
            "length64_random"]
    for what in want:
        assert dql_cases[f"test_dynamicquantizelinear_{what}"].kind == "node", what
    assert dql_cases["test_dynamicquantizelinear_probe"].kind == "probe"
    assert dql_cases["test_dynamicquantizelinear_scalar"].inputs[0][0].shape == ()
    assert dql_cases["test_dynamicquantizelinear_4d"].inputs[0][0].ndim == 4
    assert dql_cases["test_dynamicquantizelinear_single_element"].inputs[0][0].shape == (1,)


def test_dql_node_cases_match_the_reference_and_probes_are_undefined(dql_cases):
    for case in dql_cases.values():
        for i, [x] in enumerate(case.inputs):
            outcome = dql_ref.dynamic_quantize_linear(x)
            if case.kind == "probe":
                assert outcome.reasons and set(outcome.reasons) <= set(case.meta["undefined"]), case.name
                continue
            assert outcome.defined, case.name
            y, scale, zp = outcome.outputs
            ey, escale, ezp = case.outputs[i]
            assert np.array_equal(ey, y) and escale.tobytes() == scale.tobytes() and ezp == zp, case.name


def test_dql_zero_point_ties_are_exact_and_near_ties_one_ulp_off(dql_cases):
    ties = [dql_ref.quantization_parameters(x)[1]
            for [x] in dql_cases["test_dynamicquantizelinear_zero_point_ties"].inputs]
    assert all(float(z) - np.floor(float(z)) == 0.5 for z in ties) and len(ties) >= 8
    ks = {int(np.floor(float(z))) for z in ties}
    assert {0, 1, 254} <= ks and any(k % 2 for k in ks) and any(k % 2 == 0 for k in ks)
    sides = []
    for [x] in dql_cases["test_dynamicquantizelinear_zero_point_near_ties"].inputs:
        z = dql_ref.quantization_parameters(x)[1]
        tie = F32(np.rint(float(z) - 0.5) + 0.5)  # the half-integer nearest to z
        assert z in (np.nextafter(tie, F32(-1)), np.nextafter(tie, F32(1000))), float(z)
        sides.append(z > tie)
    assert sides.count(True) >= 8 and sides.count(False) >= 8


def test_dql_y_ties_are_exact_and_near_ties_one_ulp_off(dql_cases):
    for [x] in dql_cases["test_dynamicquantizelinear_y_ties"].inputs:
        scale, _ = dql_ref.quantization_parameters(x)
        q = (x / scale).astype(np.float64)
        assert ((q - np.floor(q)) == 0.5).sum() >= 20
    for [x] in dql_cases["test_dynamicquantizelinear_y_near_ties"].inputs:
        scale, _ = dql_ref.quantization_parameters(x)
        q = x / scale
        half = (np.floor(q.astype(np.float64)) + 0.5).astype(F32)
        off = (q == np.nextafter(half, F32(-np.inf))) | (q == np.nextafter(half, F32(np.inf)))
        off |= (q == np.nextafter(half + 1, F32(-np.inf))) | (q == np.nextafter(half - 1, F32(np.inf)))
        assert off.sum() >= 10


def test_dql_range_cases_reach_their_extremes(dql_cases):
    scales = lambda name: [dql_ref.quantization_parameters(x)[0] for [x] in dql_cases[name].inputs]  # noqa: E731
    assert all(np.isinf(s) for s in scales("test_dynamicquantizelinear_range_overflow"))
    assert all(s > 1e35 and np.isfinite(s) for s in scales("test_dynamicquantizelinear_range_near_flt_max"))
    sub = scales("test_dynamicquantizelinear_scale_subnormal")
    assert all(0 < s < np.finfo(F32).tiny for s in sub) and F32(2.0**-149) in sub
    assert F32(2.0**-126) in scales("test_dynamicquantizelinear_range_smallest_normal")


def test_dql_large_tensor_sizes():
    assert dql.PROFILES["exhaustive"]["large"] >= 1 << 20
    assert dql.large_input(dql.PROFILES["exhaustive"]["large"], 1).size >= 1 << 20


def test_dql_compare_tiers():
    spec = dql.COMPARE
    assert resolve_spec(spec, "y_scale", "strict")["mode"] == "exact"
    assert resolve_spec(spec, "y_scale", "tolerant") | {} == {**resolve_spec(spec, "y_scale", "tolerant"),
                                                               "mode": "ulp", "ulp": 1}
    for out in ("y", "y_zero_point"):
        assert resolve_spec(spec, out, "strict")["mode"] == "exact"
        tol = resolve_spec(spec, out, "tolerant")
        assert (tol["mode"], tol["abs"]) == ("abs", 1)


# ---------------------------------------------------------------------------------------------
# QLinearConv
# ---------------------------------------------------------------------------------------------
def test_qlc_catalogue_is_complete(qlc_cases):
    want = ["pads_absent", "pads_zero", "pads_symmetric", "pads_asymmetric", "auto_pad_notset", "auto_pad_valid",
            "kernel_shape_given", "kernel_1x1", "kernel_even", "kernel_odd", "kernel_full_padded",
            "kernel_full_valid", "group_2", "depthwise", "depthwise_multiplier", "batch_3", "conv1d", "conv3d",
            "per_channel_scale", "per_channel_zero_point", "x_zero_point_padding", "bias", "bias_negative",
            "bias_saturate", "saturate_both_ends", "ties_pow2", "ties_inexact_multiplier", "random_scales"]
    want += [f"same_{m}_s{s}_d{d}_{p}" for m in ("upper", "lower") for s in (1, 2) for d in (1, 2)
             for p in ("odd", "even") if not (s == 1 and d == 2 and p == "odd")]
    want += [f"x_{x}_w_{w}_y_{y}" for x in ("uint8", "int8") for w in ("uint8", "int8") for y in ("uint8", "int8")]
    for what in want:
        assert qlc_cases[f"test_qlinearconv_{what}"].kind == "node", what
    for what in ("negative_w_scale_length", "negative_w_zero_point_length", "negative_bias_length",
                 "negative_group_channels", "negative_pads_with_auto_pad"):
        assert qlc_cases[f"test_qlinearconv_{what}"].kind == "negative"
    assert qlc_cases["test_qlinearconv_bias_int32_overflow_probe"].kind == "probe"
    assert sum(name.startswith("test_qlinearconv_config_") for name in qlc_cases) >= 10


def _attrs(case) -> dict:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in case.model.graph.node[0].attribute}


def test_qlc_same_cases_have_the_named_parity_and_ceil_outputs(qlc_cases):
    for conv in qlc.catalogue():
        if not conv.what.startswith("same_"):
            continue
        a = conv.attrs
        begin, end, out = qlc_ref.resolve_padding(conv.x_shape[2:], conv.kernel, a["strides"], a["dilations"],
                                                  a["auto_pad"], None)
        parity = {(b + e) % 2 for b, e in zip(begin, end)}
        assert parity == {1 if conv.what.endswith("odd") else 0}, conv.what
        assert out == [-(-i // s) for i, s in zip(conv.x_shape[2:], a["strides"])]
        assert f"_s{a['strides'][0]}_d{a['dilations'][0]}_" in conv.what
        assert qlc_cases[conv.name].outputs[0][0].shape[2:] == tuple(out)


def test_qlc_node_cases_match_the_reference_and_probes_are_undefined(qlc_cases):
    by_name = {c.name: c for c in qlc.catalogue() + qlc.catalogue(qlc.PROBES) + qlc.random_configurations(16, 0)}
    for case in qlc_cases.values():
        if case.kind == "negative":
            continue
        conv = by_name.get(case.name) or qlc.witness_conv(case.name, case.meta["params"])  # witness cases too
        for i, inputs in enumerate(case.inputs):
            outcome = qlc.expected(conv, inputs)
            if case.kind == "probe":
                assert outcome.reasons and set(outcome.reasons) <= set(case.meta["undefined"]), case.name
            else:
                assert outcome.defined and np.array_equal(outcome.outputs[0], case.outputs[i][0]), case.name


def _exact_values(conv, inputs) -> np.ndarray:
    """acc * x_scale * w_scale / y_scale as Fractions (per element), for checking ties."""
    begin, end, out, strides, dilations = qlc.geometry(conv)
    acc, _ = qlc_ref.accumulate(inputs[0], int(inputs[2]), inputs[3], inputs[5].reshape(-1), conv.group, begin,
                                end, out, strides, dilations)
    acc = acc.astype(np.int64) + (inputs[8].reshape((1, -1) + (1,) * len(out)) if len(inputs) > 8 else 0)
    ws = np.broadcast_to(inputs[4].reshape(-1), (conv.m,))
    c = [Fraction(float(inputs[1])) * Fraction(float(s)) / Fraction(float(inputs[6])) for s in ws]
    return np.array([[c[m] * int(v) for v in acc[n, m].ravel()] for n in range(acc.shape[0]) for m in range(conv.m)],
                    dtype=object)


@pytest.mark.parametrize("what", ["ties_pow2", "ties_pow2_int8", "ties_pow2_per_channel", "ties_pow2_bias",
                                  "ties_inexact_multiplier"])
def test_qlc_tie_cases_hold_exact_ties(qlc_cases, what):
    conv = next(c for c in qlc.catalogue() if c.what == what)
    for inputs in qlc_cases[conv.name].inputs:
        t = _exact_values(conv, inputs).ravel()
        ties = sum(1 for v in t if (v - v.__floor__()) == Fraction(1, 2) and abs(v) < 120)
        assert ties >= 10, (what, ties)


def test_qlc_quantization_parameters_of_the_cases(qlc_cases):
    for what in ("per_channel_scale", "per_channel_zero_point", "per_channel_zero_point_int8"):
        for inputs in qlc_cases[f"test_qlinearconv_{what}"].inputs:
            ws, wz = inputs[4], inputs[5]
            assert ws.shape == wz.shape == (5,) and len(set(ws.tolist())) == 5
            assert len(set(wz.tolist())) == (5 if what.startswith("per_channel_zero") else 1)
    for x in ("uint8", "int8"):
        for w in ("uint8", "int8"):
            for y in ("uint8", "int8"):
                case = qlc_cases[f"test_qlinearconv_x_{x}_w_{w}_y_{y}"]
                zps = {tuple(int(ds[j]) for j in (2, 5, 7)) for ds in case.inputs}
                lo = tuple(np.iinfo(t).min for t in (x, w, y))
                hi = tuple(np.iinfo(t).max for t in (x, w, y))
                assert lo in zps and hi in zps, (x, w, y)
                assert [str(case.inputs[0][j].dtype) for j in (0, 3, 7)] == [x, w, y]
    for inputs in qlc_cases["test_qlinearconv_bias_negative"].inputs:
        assert (inputs[8] < 0).all()
    for name in ("test_qlinearconv_bias_saturate", "test_qlinearconv_saturate_both_ends",
                 "test_qlinearconv_saturate_both_ends_int8", "test_qlinearconv_bias_saturate_int8"):
        case = qlc_cases[name]
        for [y] in case.outputs:
            info = np.iinfo(y.dtype)
            assert (y == info.min).any() and (y == info.max).any(), name
    pads_zp = {int(ds[2]) for ds in qlc_cases["test_qlinearconv_x_zero_point_padding"].inputs}
    assert {0, 255} <= pads_zp


def test_qlc_negative_cases_are_refused_by_our_backend_at_prepare(qlc_cases, tmp_path):
    backend = get_backend("opconform")
    for case in qlc_cases.values():
        if case.kind != "negative":
            continue
        assert case.meta["phase"] == "run" and case.meta["invalid"]
        write_case(case, tmp_path)
        loaded = read_case(tmp_path / "negative" / case.name)
        with pytest.raises(ValueError):
            backend.prepare(loaded.model, loaded)
        assert run_case_dataset(backend, loaded, 0, "strict", {}).verdict == "pass"


# ---------------------------------------------------------------------------------------------
# both families
# ---------------------------------------------------------------------------------------------
def test_the_references_return_an_outcome():
    assert isinstance(dql_ref.dynamic_quantize_linear(np.zeros(2, F32)), Outcome)
    conv = qlc.catalogue()[0]
    inputs = qlc.draw_dataset(conv, sampling.Stream(0), 0)
    assert isinstance(qlc.expected(conv, inputs), Outcome)
    assert isinstance(qlc_ref.qlinear_conv(*inputs, pads=conv.attrs.get("pads")), Outcome)


@pytest.mark.parametrize("module, catalogues, fixture", [(dql, ["CATALOGUE"], "dql_cases"),
                                                         (qlc, ["CATALOGUE", "PROBES"], "qlc_cases")])
def test_the_families_follow_the_contract(module, catalogues, fixture, request):
    """FAMILY is a Family named for its module; every catalogue function is a case of that name (or its probe);
    every case carries the family's metadata; a probe says why it is one."""
    cases = request.getfixturevalue(fixture)
    assert isinstance(module.FAMILY, Family) and module.FAMILY.name == module.__name__.rsplit(".", 1)[1]
    for catalogue in (getattr(module, c) for c in catalogues):
        assert isinstance(catalogue, Catalogue) and catalogue
        for name in catalogue:
            case = f"{module.FAMILY.prefix}_{name}"
            assert case in cases or probe_name(case) in cases, name
    for case in cases.values():
        assert (case.meta["family"], case.meta["op"]) == (module.FAMILY.name, module.FAMILY.op), case.name
        assert case.meta["spec"]["file"] == module.FAMILY.spec_file and case.name.startswith(module.FAMILY.prefix)
        if case.kind == "probe":
            assert case.meta["compare"] == PROBE_COMPARE and case.meta["undefined"], case.name


@pytest.mark.parametrize("module", [dql, qlc])
def test_generation_is_deterministic_and_seeded(module):
    first = {n: case_files(c) for n, c in _generate(module, "quick").items()}
    again = {n: case_files(c) for n, c in _generate(module, "quick").items()}
    assert first == again
    a, b = _generate(module, "default", 0), _generate(module, "default", 1)
    random = [n for n in a if "random" in n and a[n].kind == "node"]
    assert random and any(n not in b or case_files(a[n]) != case_files(b[n]) for n in random)
    # --seed changes the random cases only (their names end in _random, or _random_probe)
    for n in a:
        if not n.endswith(("_random", "_random_probe")):
            assert case_files(a[n]) == case_files(b[n]), n


def test_our_backend_passes_every_case(dql_cases, qlc_cases, tmp_path):
    bad = []
    for case, r in opconform_results(list(dql_cases.values()) + list(qlc_cases.values()), tmp_path):
        if r.verdict not in ("pass", "probe"):
            bad.append(r.message)
        if case.kind == "node":
            assert r.tiers_met == ["strict", "tolerant"], r.message
    assert not bad, bad[:5]
