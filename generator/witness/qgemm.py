"""Witnesses of the QGemm fault models (generator/reference/qgemm_faults.py), per class (qgemm_faults.all_groups).

For each class, a list of candidate data sets on small configurations of that class (M = K = N = 3 so that a
transposition ignored gives values, not a refusal; uint8 A (int8 for an int8 y), int8 B, the class's output;
b_scale / b_zero_point [N] where the class is per column; C [M, N] where it has C), each built by construction, in
this order:
  random          seeded draws over the whole types, alpha omitted, then alpha -1.5 and 3, transA 1, transB 1;
                  b_zero_point [] beside a b_scale [N] (per column) or [1] (per tensor): mixed
  pow2 ties       power-of-two scales, A and B within 6 of their zero points, alpha 1/2 and -1/2 (x / y_scale on
                  half-integers of both signs; y_zero_point at each end of its type in turn)
  float ties      a_scale = b_scale = 2**-7 / 2**-8, y_scale = 2 b 2**-15 with b odd: the multiplier 1 / (2 b),
                  acc = 509 b (A 255, 254 over B = b): the tie 254.5 (y_zero_point the type's bottom), which a float32
                  or float64 multiplier fl(1 / (2 b)) may round off the tie; the b of each arithmetic found by
                  enumeration (_float_tie_bs)
  saturation      y_scale ten times too small
  int16 pairs     A = a_zero_point = 255, B = b_zero_point = -128: every exact term 0, every raw pair -65280
  K = 0           the empty product (y from C and y_zero_point alone)
and each fault takes the first candidate that tells it from the reference under the case's compare (qgemm_faults.
killed: exact for a quantized output, the dot-product bound for a float one), `how: "construction"`.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from generator import sampling
from generator.catalogue import qgemm as codec
from generator.faults import Refusal
from generator.families.qgemm.config import Gemm, dataset_cases, draw_dataset
from generator.reference import qgemm_faults as F
from generator.reference.requantize_variants import _requantize
from generator import dtypes
from generator.witness import group_faults


def base(quantized: bool, per_column: bool, c: bool, y: str = "uint8") -> Gemm:
    form = "column" if per_column else "tensor"
    a = "int8" if quantized and y == "int8" else "uint8"  # onnxruntime's type triples: y of A's type
    return Gemm("witness", 3, 3, 3, types=(a, "int8", y if quantized else "float"), b_scale_form=form,
                b_zp_form=form, c_shape=(3, 3) if c else None)


@functools.cache
def _float_tie_bs() -> tuple[int, ...]:
    """Odd b in 3 .. 127 where acc = 509 b at the multiplier 1 / (2 b) rounds off the tie 254.5 in float32, in
    float64 (one b each, the first found)."""
    found = []
    u8 = dtypes.get("uint8")
    for how in ("float32", "float64"):
        for b in range(3, 128, 2):
            acc = np.array([[509 * b]], np.int64)
            got = _requantize(acc, acc.max(), 2.0**-7, [2.0**-8], 2 * b * 2.0**-15, 0, u8, how)
            if int(got[0, 0]) != 254:
                found.append(b)
                break
    return tuple(found)


def _tie_data(g: Gemm, b: int, yz: int) -> list[np.ndarray]:
    """acc[0, 0] = 509 b, every other acc 0 (zero points 0), scales 2**-7, 2**-8, 2 b 2**-15."""
    a = np.zeros(g.a_shape, np.uint8)
    a[0, 0], a[0, 1] = 255, 254
    bb = np.zeros(g.b_shape, np.int8)
    bb[0, 0] = bb[1, 0] = b
    sh = g.shapes()
    data = {"A": a, "a_scale": np.float32(2.0**-7), "a_zero_point": np.uint8(0), "B": bb,
            "b_scale": np.full(sh["b_scale"], 2.0**-8, np.float32), "b_zero_point": np.zeros(sh["b_zero_point"],
                                                                                             np.int8),
            "C": np.zeros(g.c_shape or (), np.int32), "y_scale": np.float32(2 * b * 2.0**-15),
            "y_zero_point": np.asarray(yz).astype(dtypes.get(g.types[2]).np_dtype if g.quantized else np.uint8)}
    return [np.asarray(data[n]) for n in g.slots]


def _pairs_data(g: Gemm, s: sampling.Stream) -> list[np.ndarray]:
    d = dict(zip(g.slots, draw_dataset(g, s, 0)))
    d["A"], d["a_zero_point"] = np.full(g.a_shape, 255, np.uint8), np.asarray(np.uint8(255))
    d["B"], d["b_zero_point"] = np.full(g.b_shape, -128, np.int8), np.full(np.shape(d["b_zero_point"]), -128, np.int8)
    if g.quantized:
        d["y_scale"] = np.asarray(np.float32(float(d["a_scale"]) * float(np.max(d["b_scale"]))))
    return [np.asarray(d[n]) for n in g.slots]


def candidates(parts: tuple[bool, bool, bool]) -> list[tuple[str, Gemm, list[np.ndarray]]]:
    """The class's candidate (label, configuration, data set) list, in the module docstring's order."""
    g0 = base(*parts)
    out = []
    s = sampling.Stream(sampling.case_seed(0, f"qgemm_witness_{F.key_of(*parts)}"))
    mixed = [("mixed", replace(g0, b_zp_form="tensor") if parts[1] else replace(g0, b_scale_form="one"))]
    for label, g in [("random", g0), ("alpha_negative", replace(g0, alpha=-1.5)), ("alpha_3", replace(g0, alpha=3.0)),
                     ("trans_a", replace(g0, trans_a=1)), ("trans_b", replace(g0, trans_b=1))] + mixed:
        out += [(label, g, draw_dataset(g, s, i)) for i in range(2)]
    if parts[0]:
        for y in ("uint8", "int8"):
            for label, alpha in (("", 0.5), ("_negative", -0.5)):
                g = replace(base(*parts, y=y), alpha=alpha, scales="pow2", spread=6, zero_points="ends")
                out += [(f"pow2{label}_{y}", g, draw_dataset(g, s, i)) for i in range(6)]
        t = dtypes.get("uint8")
        out += [("float_tie", g0, _tie_data(g0, b, t.int_min)) for b in _float_tie_bs()]
        g = replace(g0, scales="saturate")
        out += [("saturate", g, draw_dataset(g, s, i)) for i in range(2)]
    out.append(("pairs", g0, _pairs_data(g0, s)))
    g = replace(g0, k=0)
    out += [("k_0", g, draw_dataset(g, s, i)) for i in range(2)]
    return out


def differs(fault, g: Gemm, data: list[np.ndarray]) -> bool:
    """Does the case of (g, data) tell the fault from the reference?"""
    cases = [c for c in dataset_cases(g, [data], 0, ["witness"]) if c.kind == "node"]
    if not cases:
        return False
    case = cases[0]
    try:
        actual = F.run(fault, case.model, data, case.meta)
    except Refusal:
        return True
    return bool(F.killed(fault, case.meta, case.outputs[0], actual))


def find(max_opset: int, budget: int) -> dict:
    """The catalogue's "groups": one entry per class."""
    groups = {}
    for parts in F.all_groups():
        cands = candidates(parts)
        params = base(*parts).params()

        def witnesses_of(fault, cands=cands):
            if not fault.applies(params):
                return "construction", []
            for label, g, data in cands:
                if differs(fault, g, data):
                    return "construction", [{"config": label, "params": g.params(), "inputs": codec.named(g.slots,
                                                                                                            data)}]
            return "construction", []

        groups[F.key_of(*parts)] = {"params": params, "faults": group_faults(F.FAULTS, params, witnesses_of)}
    return groups
