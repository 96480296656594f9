"""gen-cases --from-model on com.microsoft MatMulNBits nodes as onnxruntime's matmul_nbits_quantizer writes them
(4-bit B packed by the reference's own helpers, block_size 32 and 128, packed zero points or none, accuracy_level
0 / 1 / 4, float32 and float16 A, a bias, a computed scales input): the constants kept bit for bit, the opconform
backend passing every case, a fault model failing some, and the flat scales of older quantizers skipped."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from generator.reference import matmul_nbits as ref
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

MS = ref.DOMAIN


def quantize(w: np.ndarray, bs: int, symmetric: bool, t: str = "float"):
    """W [K, N] quantized to 4 bits per block along K as onnxruntime's quantizer does (MLAS): asymmetric: scale
    (max - min) / 15 over [min(0, ...), max(0, ...)], zero point round(-min / scale); symmetric: scale the
    largest-magnitude value / -8, zero point 8. Returns (B, scales, packed zero points or None)."""
    K, N = w.shape
    kb = ref.k_blocks(K, bs)
    wp = np.zeros((kb * bs, N))
    wp[:K] = w
    blocks = wp.T.reshape(N, kb, bs)
    if symmetric:
        big = np.take_along_axis(blocks, np.abs(blocks).argmax(axis=-1)[..., None], -1)[..., 0]
        scale = np.where(big == 0, 1.0, big / -8)
        zp = np.full((N, kb), 8.0)
    else:
        lo, hi = np.minimum(blocks.min(axis=-1), 0), np.maximum(blocks.max(axis=-1), 0)
        scale = np.where(hi > lo, (hi - lo) / 15, 1.0)
        zp = np.clip(np.round(-lo / scale), 0, 15)
    codes = np.clip(np.round(blocks / scale[..., None] + zp[..., None]), 0, 15).astype(np.int64)
    codes[:, -1, K - (kb - 1) * bs:] = 0  # the padding of the last block
    b = ref.pack(codes, 4)
    scales = tensor(scale.astype(np.float32 if t == "float" else np.float16), "", t)
    return b, scales, None if symmetric else ref.pack(zp.astype(np.int64), 4)


def _node(inits: list, name: str, a: str, y: str, K: int, N: int, bs: int, seed: int, *, symmetric=False, t="float",
          level=None, bias=False, computed_scales=False) -> list:
    """A MatMulNBits node of a seeded normal W [K, N] quantized as onnxruntime's quantizer does, its constants
    appended to inits; computed_scales: its scales the output of an Identity node (a computed input)."""
    w = np.random.default_rng(seed).normal(0, 0.05, (K, N))
    b, scales, zp = quantize(w, bs, symmetric, t)
    p = name.strip("/").replace("/", "_")
    scales.name = f"{p}_scales" + ("_raw" if computed_scales else "")
    inits += [tensor(b, f"{p}_Q4", "uint8"), scales]
    nodes = [helper.make_node("Identity", [scales.name], [f"{p}_scales"])] if computed_scales else []
    ins = [a, f"{p}_Q4", f"{p}_scales"]
    if zp is not None:
        inits.append(tensor(zp, f"{p}_zero_points", "uint8"))
        ins.append(f"{p}_zero_points")
    if bias:
        inits.append(tensor(np.linspace(-1, 1, N).astype(np.float32), f"{p}_bias", t))
        ins += [""] * (5 - len(ins)) + [f"{p}_bias"]
    attrs = dict(K=K, N=N, bits=4, block_size=bs, **({"accuracy_level": level} if level else {}))
    return nodes + [helper.make_node("MatMulNBits", ins, [y], name=name, domain=MS, **attrs)]


def _model():
    """Six nodes the quantizer writes (float32 and float16 A, block_size 32 and 128, zero points or none,
    accuracy_level 0, 1, 4, a bias, an A computed by Relu, scales computed by Identity), and one with flat scales."""
    inits: list = []
    nodes = [*_node(inits, "/q_proj/MatMul_Q4", "x", "q", 96, 8, 32, 1, level=4),
             *_node(inits, "/k_proj/MatMul_Q4", "x", "k", 96, 6, 32, 2, symmetric=True, bias=True),
             *_node(inits, "/down_proj/MatMul_Q4", "h", "d", 256, 8, 128, 3, level=1),
             helper.make_node("Relu", ["h"], ["hr"], name="/act/Relu"),
             *_node(inits, "/lm_head/MatMul_Q4", "hr", "lm", 256, 5, 128, 4, symmetric=True, computed_scales=True),
             *_node(inits, "/fp16/MatMul_Q4", "xh", "f", 96, 4, 32, 5, t="float16"),
             *_node(inits, "/fp16_out/MatMul_Q4", "xh", "g", 96, 3, 128, 6, symmetric=True, t="float16", level=1),
             helper.make_node("MatMulNBits", ["x", "old_Q4", "old_scales"], ["o"], name="/old/MatMul_Q4", domain=MS,
                              K=96, N=2, bits=4, block_size=32)]
    inits += [tensor(np.zeros((2, 3, 16), np.uint8), "old_Q4", "uint8"),  # flat scales: older quantizers' layout
              tensor(np.full(6, 0.01, np.float32), "old_scales", "float")]
    outs = [(n, "float", ["batch", "seq", w]) for n, w in (("q", 8), ("k", 6), ("d", 8), ("lm", 5), ("o", 2))]
    outs += [("f", "float16", ["batch", "seq", 4]), ("g", "float16", ["batch", "seq", 3])]
    ins = [("x", "float", ["batch", "seq", 96]), ("h", "float", ["batch", "seq", 256]),
           ("xh", "float16", ["batch", "seq", 96])]
    return graph_model(nodes, ins, outs, inits, 21, {MS: 1})


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mnb")
    model = _model()
    return tmp, model, *from_model(model, tmp)


def _metas(out, info) -> dict:
    return {n["node"]: json.loads((out / "node" / n["cases"][0] / "case.json").read_text()) for n in info["covered"]}


def test_the_account_and_each_case_as_the_family_writes_it(suite):
    tmp, model, out, manifest = suite
    info = manifest["model"]
    metas = _metas(out, info)
    assert sorted(metas) == sorted(["/q_proj/MatMul_Q4", "/k_proj/MatMul_Q4", "/down_proj/MatMul_Q4",
                                    "/lm_head/MatMul_Q4", "/fp16/MatMul_Q4", "/fp16_out/MatMul_Q4"])
    assert [s["node"] for s in info["skipped"]] == ["/old/MatMul_Q4"] and "flat" in info["skipped"][0]["why"]
    assert set(info["not_covered"]) <= {"Relu", "Identity"}
    q, k, lm, f = (metas[f"/{n}/MatMul_Q4"] for n in ("q_proj", "k_proj", "lm_head", "fp16"))
    assert q["params"] == {"what": "model", "t1": "float32", "bits": 4, "block_size": 32, "K": 96, "N": 8,
                           "zero_points": "packed", "g_idx": False, "bias": False, "accuracy_level": 4}
    assert q["opset"] == 21 and q["domain"] == MS and q["compare"]["a_int8_block"] == 32
    assert q["compare"]["slots"] == ["A", "B", "scales", "zero_points"] and ref.READING_INT8 in q["reading"]
    assert k["compare"]["slots"] == ["A", "B", "scales", "bias"] and k["compare"]["abs_bound"] == 2 * 97
    assert lm["compare"]["slots"] == ["A", "scales", "B"]  # the computed scales: generated, fed
    assert lm["source"]["inputs"]["input_2"]["origin"] == "computed"
    assert f["params"]["t1"] == "float16" and f["compare"]["accumulation"] == "float16"
    g = metas["/fp16_out/MatMul_Q4"]  # a float16 A summed as float32 (level 1), K 96 in a block of 128
    assert g["compare"]["accumulation"] == "float" and g["params"]["accuracy_level"] == 1 and g["params"]["K"] == 96
    assert all({"edge", "random"} <= set(m["inputs_from"]) for m in metas.values())


def test_constants_are_the_models(suite):
    tmp, model, out, _ = suite
    assert check_constants(out, model) == 4 * 3 + 2 + 1  # B, scales, zp or bias (four nodes); B, scales; lm_head's B


def test_every_live_fault_is_told_apart(suite):
    """The faults that can differ in each configuration, told apart there (what stays untold cannot differ)."""
    tmp, model, out, manifest = suite
    for node, meta in _metas(out, manifest["model"]).items():
        assert meta["untold"] == [], (node, meta["untold"])


def test_the_reference_passes_and_faults_fail(suite):
    tmp, model, out, _ = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass"}
    failed = verdicts(run_suite(out, "fault:matmul_nbits.b_code_order_swapped", tmp))
    assert failed.get("fail", 0) > 0


def test_the_draws_alone_tell_every_live_fault_apart(suite):
    """The witness search's candidates (Plan.draw), with no edge but A = 0 and no random data, still tell each
    fault that can differ apart: the draws aim where the edges do, at other columns and positions."""
    import dataclasses

    from generator.from_model import matmul_nbits, model_source, node_cases
    from generator.from_model.plan import Context

    tmp, model, out, _ = suite
    source = model_source.read(tmp / "model.onnx")
    for site in (s for s in source.sites if s.op == "MatMulNBits" and s.name != "/old/MatMul_Q4"):
        plan = matmul_nbits.plan(site, Context())
        cut = dataclasses.replace(plan, edges=plan.edges[:1], random=None)  # the first edge: A = 0
        meta = node_cases.build(site, cut, source, Context(), 0)[0].meta
        assert meta["untold"] == [] and len(meta["inputs_from"]) > 1, (site.name, meta["untold"])


def test_calibration_sets_the_random_range(suite):
    """--calibration's range of A is where the random data lie (and the case says so)."""
    from generator.from_model import matmul_nbits, model_source
    from generator.from_model.plan import Context
    from generator.sampling import Stream

    tmp, model, out, _ = suite
    site = next(s for s in model_source.read(tmp / "model.onnx").sites if s.name == "/q_proj/MatMul_Q4")
    plan = matmul_nbits.plan(site, Context({"x": (0.5, 0.75)}))
    a = plan.random(Stream(1))[0]
    assert plan.range_note == "calibration" and a.shape == (2, 2, 96) and 0.5 <= a.min() and a.max() <= 0.75
