"""One QGemm case's configuration (Gemm), its one-node model, its drawn data sets, and the node and probe cases of
given data sets: what every other part of the family builds on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import onnx
from onnx import helper

from generator import dtypes, sampling
from generator.case import Case, finish_model, value_info
from generator.family import Family, split
from generator.outcome import Outcome
from generator.reference import qgemm as ref

FAMILY = Family("qgemm", "QGemm", ref.SPEC_FILE, domain=ref.DOMAIN)
OPSET = 13  # the ai.onnx import beside com.microsoft 1 (the model has no ai.onnx node)
CLAUSE = ref.CLAUSE
ABS_BOUND = 8
COMPARE_QUANTIZED = {
    "mode": "exact",
    "reason": "one result per input: the exact x / y_scale (x = alpha * a_scale * b_scale * (acc + C)) rounded half "
              "to even, plus y_zero_point, saturated (reference READING_REQUANT)",
    "tolerant": {"mode": "abs", "abs": 1, "reason": "a float32 or fixed-point requantization multiplier is common "
                                                    "practice (onnxruntime's MLAS): +-1 where x / y_scale is near a "
                                                    "half-integer"},
}
DOT_REASON = ("dot-product bound: the integer sum acc + C is exact, the float steps (alpha * a_scale * b_scale, "
              "float(acc + C), their product) are not ordered by the text; abs_bound 8 units of 2**-24 of sum_k "
              "|da db| + |C| scaled: room for the five float32 roundings a kernel may take, far below a float16 "
              "rounding (2**-11) or a missing alpha")


@dataclass(frozen=True)
class Gemm:
    """One case: sizes, attributes, types, quantization forms, C, and how its data sets are drawn."""

    what: str = ""  # the case is test_qgemm_<what>
    m: int = 3
    k: int = 4
    n: int = 5
    trans_a: int | None = None  # None: the attribute left out (default 0)
    trans_b: int | None = None
    alpha: float | None = None  # None: left out (default 1.0)
    types: tuple = ("uint8", "int8", "uint8")  # A, B, y ("float": the float32 output, no y_scale / y_zero_point)
    b_scale_form: str = "tensor"  # tensor ([]) | one ([1]) | column ([N])
    b_zp_form: str = "tensor"
    c_shape: tuple | None = None  # None: C omitted
    scales: str = "random"  # random | pow2 | saturate | bad
    zero_points: str = "random"  # random | ends (bottom, then top of each type) | zero
    spread: int | None = None  # A and B within +-spread of their zero points (None: the whole type)
    c_values: str = "random"  # random | max | min (acc + C at int32's ends) | overflow (one past: a probe)
    explicit_defaults: bool = False  # the explicit-defaults axis: every schema default written

    @property
    def name(self) -> str:
        return f"{FAMILY.prefix}_{self.what}"

    @property
    def quantized(self) -> bool:
        return self.types[2] != "float"

    @property
    def attrs(self) -> dict:
        a = {k: v for k, v in (("alpha", self.alpha), ("transA", self.trans_a), ("transB", self.trans_b))
             if v is not None}
        return {**ref.DEFAULTS, **a} if self.explicit_defaults else a

    @property
    def a_shape(self) -> tuple:
        return (self.k, self.m) if self.trans_a else (self.m, self.k)

    @property
    def b_shape(self) -> tuple:
        return (self.n, self.k) if self.trans_b else (self.k, self.n)

    def form_shape(self, form: str) -> tuple:
        return {"tensor": (), "one": (1,), "column": (self.n,)}[form]

    @property
    def slots(self) -> list[str]:
        """The node inputs given, in order (the model's graph inputs)."""
        given = {"C": self.c_shape is not None, "y_scale": self.quantized, "y_zero_point": self.quantized}
        return [n for n in ref.INPUTS if given.get(n, True)]

    def shapes(self) -> dict[str, tuple]:
        bs, bz = self.form_shape(self.b_scale_form), self.form_shape(self.b_zp_form)
        return {"A": self.a_shape, "a_scale": (), "a_zero_point": (), "B": self.b_shape, "b_scale": bs,
                "b_zero_point": bz, "C": self.c_shape, "y_scale": (), "y_zero_point": ()}

    def input_types(self) -> dict[str, str]:
        y = self.types[2] if self.quantized else "uint8"
        return {"A": self.types[0], "a_scale": "float", "a_zero_point": self.types[0], "B": self.types[1],
                "b_scale": "float", "b_zero_point": self.types[1], "C": "int32", "y_scale": "float", "y_zero_point": y}

    def params(self) -> dict:
        alpha, ta, tb = ref.attributes(self.attrs)
        return {"M": self.m, "K": self.k, "N": self.n, "transA": int(ta), "transB": int(tb), "alpha": alpha,
                "a_type": self.types[0], "b_type": self.types[1], "y_type": self.types[2],
                "b_scale_shape": list(self.form_shape(self.b_scale_form)),
                "b_zero_point_shape": list(self.form_shape(self.b_zp_form)),
                "c_shape": None if self.c_shape is None else list(self.c_shape), "attrs": dict(self.attrs),
                "scales": self.scales}


def from_params(what: str, p: dict) -> Gemm:
    """The configuration params() describes (witness catalogue, hunt args)."""
    forms = {(): "tensor", (1,): "one"}
    attrs = p.get("attrs", {})
    return Gemm(what, p["M"], p["K"], p["N"], attrs.get("transA"), attrs.get("transB"), attrs.get("alpha"),
                (p["a_type"], p["b_type"], p["y_type"]), forms.get(tuple(p["b_scale_shape"]), "column"),
                forms.get(tuple(p["b_zero_point_shape"]), "column"),
                None if p.get("c_shape") is None else tuple(p["c_shape"]), p.get("scales", "random"))


def model(g: Gemm, shapes: dict | None = None, types: dict | None = None, attrs: dict | None = None,
          y_shape: tuple | None = None) -> onnx.ModelProto:
    """The one-node model: the given inputs as graph inputs (an omitted C before y_scale written ""); shapes / types
    / attrs / y_shape override the declared ones (negative cases; a symbolic "N" for the vector-tail axis)."""
    shapes = {**g.shapes(), **(shapes or {})}
    types = {**g.input_types(), **(types or {})}
    slots = g.slots
    last = max(i for i, n in enumerate(ref.INPUTS) if n in slots)
    names = [n if n in slots else "" for n in ref.INPUTS[:last + 1]]
    node = helper.make_node("QGemm", names, ["Y"], domain=ref.DOMAIN, **(g.attrs if attrs is None else attrs))
    y_type = dtypes.get(g.types[2])
    graph = helper.make_graph([node], "qgemm", [value_info(n, dtypes.get(types[n]), shapes[n]) for n in slots],
                              [value_info("Y", y_type, y_shape or (g.m, g.n))])
    return finish_model(graph, OPSET, {ref.DOMAIN: ref.DOMAIN_OPSET})


def full_inputs(g: Gemm, data: list) -> list:
    """A data set (slot order) as the reference's nine inputs (None where omitted)."""
    by_name = dict(zip(g.slots, data))
    return [by_name.get(n) for n in ref.INPUTS]


def expected(g: Gemm, data: list) -> Outcome:
    return ref.qgemm(full_inputs(g, data), g.attrs)


def compare(g: Gemm) -> dict:
    if g.quantized:
        return COMPARE_QUANTIZED
    return {"mode": "dot", "operands": "qgemm", "node": ref.compare_node(g.attrs), "slots": list(g.slots),
            "accumulation": "float", "abs_bound": ABS_BOUND, "reason": DOT_REASON}


def reading(g: Gemm) -> str:
    per_column = g.n > 1 and "column" in (g.b_scale_form, g.b_zp_form)
    return "; ".join(ref.readings(g.quantized, per_column))


def dataset_cases(g: Gemm, datasets: list[list[np.ndarray]], s: int, flags: list[str], model_of=None,
                  **extra) -> Iterator[Case]:
    """The node case of the data sets the text defines (expected outputs from the reference) and the probe case of
    the others (generator.family.split)."""
    meta = FAMILY.meta(opset=OPSET, clause=CLAUSE, compare=compare(g), flags=flags, seed=s, params=g.params(),
                       reading=reading(g), **extra)
    outcomes = [expected(g, d) for d in datasets]
    yield from split(g.name, datasets, outcomes, model_of or (lambda _: model(g)), meta)


# ---------------------------------------------------------------------------------------
# drawn data sets
# ---------------------------------------------------------------------------------------
def _ints(t: dtypes.DType, shape: tuple, s: sampling.Stream, zp=None, spread: int | None = None) -> np.ndarray:
    if spread is None:
        return s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
    v = np.asarray(zp, np.int64) + s.integers(-spread, spread, shape)
    return np.clip(v, t.int_min, t.int_max).astype(t.np_dtype)


def _zero_point(g: Gemm, t: dtypes.DType, shape: tuple, s: sampling.Stream, i: int) -> np.ndarray:
    if g.zero_points == "zero":
        return np.zeros(shape, t.np_dtype)
    if g.zero_points == "ends":
        return np.full(shape, (t.int_min, t.int_max)[i % 2], t.np_dtype)
    return s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)


def draw_dataset(g: Gemm, s: sampling.Stream, i: int) -> list[np.ndarray]:
    """Data set i of g (slot order): zero points as g.zero_points says, A and B over their types (or within g.spread
    of the zero points), scales log-uniform (pow2: powers of two, exact ties), C within the accumulators' spread (or
    acc + C at int32's ends), y_scale set from |acc + C| so that outputs spread over the output range (saturate: 10
    times beyond it)."""
    at, bt = dtypes.get(g.types[0]), dtypes.get(g.types[1])
    sh = g.shapes()
    az = _zero_point(g, at, (), s, i)
    bz = _zero_point(g, bt, sh["b_zero_point"], s, i)
    a = _ints(at, g.a_shape, s, az, g.spread)
    b = _ints(bt, g.b_shape, s, bz.reshape(-1, 1) if g.trans_b and bz.size > 1 else bz, g.spread)
    if g.c_values == "overflow":  # every acc positive (zero points 0): acc + C = 2**31 everywhere
        a, b = np.full(g.a_shape, at.int_max, at.np_dtype), np.full(g.b_shape, bt.int_max, bt.np_dtype)
    nb = int(np.prod(sh["b_scale"]))
    if g.scales == "pow2":
        xs, ws = [2.0**-7], [2.0**-8] * nb
        if nb > 1:
            ws[-1] = 2.0**-9
    else:
        xs, ws = s.octaves(-9, -3, 1).tolist(), s.octaves(-9, -3, nb).tolist()
    a_scale = np.float32(xs[0])
    b_scale = np.asarray(ws, np.float32).reshape(sh["b_scale"])
    data = {"A": a, "a_scale": np.asarray(a_scale), "a_zero_point": np.asarray(az), "B": b, "b_scale": b_scale,
            "b_zero_point": bz}
    alpha, _, _ = ref.attributes(g.attrs)
    probe = [data[n] if n in data else None for n in ref.INPUTS[:6]]
    acc = ref.accumulate(ref.operands(probe, g.attrs))
    if g.c_shape is not None:
        full = (g.m, g.n)
        if g.c_values in ("max", "min", "overflow"):
            end = ref.INT32_MIN if g.c_values == "min" else ref.INT32_MAX + (g.c_values == "overflow")
            c = np.clip(end - acc, ref.INT32_MIN, ref.INT32_MAX)  # c_shape is (M, N) for these
        else:
            top = max(1, int(np.abs(acc).max(initial=0)))
            c = s.integers(-top, top, g.c_shape)
        data["C"] = np.asarray(c, np.int64).reshape(g.c_shape if g.c_values == "random" else full).astype(np.int32)
        acc = acc + np.broadcast_to(data["C"].astype(np.int64), full)
    if g.quantized:
        yt = dtypes.get(g.types[2])
        yz = _zero_point(g, yt, (), s, i)
        spread = max(1.0, float(np.abs(acc).max(initial=0)))
        if g.scales == "pow2":
            ys = 2.0 ** -(15 + i % 3)
        else:
            room = 1000.0 if g.scales == "saturate" else 100.0
            ys = abs(alpha or 1.0) * float(a_scale) * float(np.median(b_scale)) * spread / room
        data["y_scale"], data["y_zero_point"] = np.asarray(np.float32(ys)), np.asarray(yz)
    if g.scales == "bad":
        slot = "y_scale" if g.quantized else "a_scale"
        data[slot] = np.asarray(np.float32((0.0, -2.0**-10, np.inf, np.nan, -0.0)[i % 5]))
    return [np.asarray(data[n]) for n in g.slots]


def gemm_cases(g: Gemm, n: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """n drawn data sets of g as its node (and probe) case."""
    s = sampling.Stream(sampling.case_seed(seed, g.name))
    yield from dataset_cases(g, [draw_dataset(g, s, i) for i in range(n)], seed, flags)

