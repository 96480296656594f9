"""One QLinearMatMul case's configuration (MatMul), its model, its drawn data sets, and the node and probe cases of
given data sets: what every other part of the family builds on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from generator import dtypes, sampling
from generator.case import Case, node_model
from generator.family import Family, split
from generator.outcome import Outcome
from generator.reference import qlinear_matmul as ref

FAMILY = Family("qlinear_matmul", "QLinearMatMul", ref.SPEC_FILE)
OPSET = 10
NEWEST = 21
NAMES = ref.NAMES

PROFILES = {
    # datasets: per case; random: seeded random configurations
    "quick": dict(datasets=1, random=0),
    "default": dict(datasets=2, random=4),
    "exhaustive": dict(datasets=8, random=64),
}

COMPARE = {
    "mode": "exact",
    "reason": "one result per input: the exact value acc * a_scale * b_scale / y_scale rounded half to even, "
              "plus y_zero_point, saturated",
    "tolerant": {"mode": "abs", "abs": 1, "reason": "fixed-point requantization is common practice: +-1"},
}
CLAUSE = "Summary (numpy.matmul; y = saturate((x / y_scale) + y_zero_point), ties to even; per row / per column); " \
         "inputs a .. y_zero_point; T1, T2, T3, TS"


@dataclass(frozen=True)
class MatMul:
    """One case: shapes, types, quantization granularity, and how its data sets are drawn."""

    what: str = ""  # the case is test_qlinearmatmul_<what>
    a_shape: tuple = (3, 4)
    b_shape: tuple = (4, 5)
    types: tuple = ("uint8", "uint8", "uint8")  # a, b, y
    scale_type: str = "float"
    a_quant: str = "per_tensor"  # per_tensor | per_row ([M] for a 2-D a) | per_row_nd ([..., M, 1])
    b_quant: str = "per_tensor"  # per_tensor | per_column ([N] for a 2-D b) | per_column_nd ([..., 1, N])
    scales: str = "random"  # random | pow2 | sixth | saturate | bad | nan | nonfinite (a float8 a's first NaN / Inf)
    zero_points: str = "random"  # random | ends (the bottom, then the top of each type) | zero | float8 (float8 ones
    # drawn; otherwise a float8 zero point is 0)
    spread: int | None = None  # a and b within +-spread of their zero points (None: the whole type)
    opset: int = NEWEST

    @property
    def name(self) -> str:
        return f"{FAMILY.prefix}_{self.what}"

    @property
    def a_scale_shape(self) -> tuple:
        a = self.a_shape
        return () if self.a_quant == "per_tensor" else (a[-2],) if self.a_quant == "per_row" else tuple(a[:-1]) + (1,)

    @property
    def b_scale_shape(self) -> tuple:
        b = self.b_shape
        if self.b_quant == "per_tensor":
            return ()
        return (b[-1],) if self.b_quant == "per_column" else tuple(b[:-2]) + (1, b[-1])

    @property
    def y_shape(self) -> tuple:
        return ref.output_shape(self.a_shape, self.b_shape)

    def params(self) -> dict:
        return {"a_shape": list(self.a_shape), "b_shape": list(self.b_shape), "a_type": self.types[0],
                "b_type": self.types[1], "y_type": self.types[2], "scale_type": self.scale_type,
                "a_quant": "per_row" if self.a_quant.startswith("per_row") else "per_tensor",
                "b_quant": "per_column" if self.b_quant.startswith("per_column") else "per_tensor",
                "a_quant_shape": list(self.a_scale_shape), "b_quant_shape": list(self.b_scale_shape),
                "scales": self.scales}


def from_params(what: str, p: dict, opset: int = NEWEST) -> MatMul:
    """The configuration params() describes (witness catalogue, hunt args)."""
    a_shape, b_shape = tuple(p["a_shape"]), tuple(p["b_shape"])
    aq, bq = tuple(p["a_quant_shape"]), tuple(p["b_quant_shape"])
    a_quant = "per_tensor" if p["a_quant"] == "per_tensor" else "per_row" if aq == (a_shape[-2],) and \
        len(a_shape) == 2 and aq != tuple(a_shape[:-1]) + (1,) else "per_row_nd"
    b_quant = "per_tensor" if p["b_quant"] == "per_tensor" else "per_column" if bq == (b_shape[-1],) and \
        len(b_shape) == 2 else "per_column_nd"
    return MatMul(what, a_shape, b_shape, (p["a_type"], p["b_type"], p["y_type"]), p["scale_type"], a_quant, b_quant,
                  p["scales"], opset=opset)


def model(mm: MatMul, input_shapes: list[tuple] | None = None, input_types: list | None = None):
    """The one-node model; input_shapes / input_types override the declared inputs (negative cases)."""
    at, bt, yt = (dtypes.get(t) for t in mm.types)
    st = dtypes.get(mm.scale_type)
    shapes = [mm.a_shape, mm.a_scale_shape, mm.a_scale_shape, mm.b_shape, mm.b_scale_shape, mm.b_scale_shape, (), ()]
    types = [at, st, at, bt, st, bt, st, yt]
    shapes, types = list(input_shapes or shapes), list(input_types or types)
    try:
        y_shape = ref.output_shape(shapes[0], shapes[3])
    except ValueError:
        y_shape = None
    return node_model(FAMILY.op, list(zip(NAMES, types, shapes)), [("y", yt, y_shape)], {}, mm.opset)


def expected(inputs: list[np.ndarray]) -> Outcome:
    return ref.qlinear_matmul(*inputs)


def spec_file(opset: int) -> str:
    """The schema version a model of this opset runs: QLinearMatMul-10 below 21, -21 from 21 on."""
    return f"onnx.defs:QLinearMatMul-{NEWEST if opset >= NEWEST else OPSET}"


def reading(mm: MatMul) -> str:
    return "; ".join(ref.readings(mm.a_quant != "per_tensor", mm.b_quant != "per_tensor",
                                  any(t in ref.FLOAT8_TYPES for t in mm.types)))


def dataset_cases(mm: MatMul, datasets: list[list[np.ndarray]], s: int, flags: list[str], **extra) -> Iterator[Case]:
    """The node case of the data sets the text defines (expected outputs from the reference) and the probe case of
    the others (generator.family.split)."""
    meta = FAMILY.meta(opset=mm.opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=s, params=mm.params(),
                       reading=reading(mm), spec_file=spec_file(mm.opset), **extra)
    yield from split(mm.name, datasets, [expected(inputs) for inputs in datasets], lambda _: model(mm), meta)


# ---------------------------------------------------------------------------------------
# drawn data sets
# ---------------------------------------------------------------------------------------
def _ints(t: dtypes.DType, shape: tuple, s: sampling.Stream, zp=None, spread: int | None = None) -> np.ndarray:
    if t.name in ref.FLOAT8_TYPES:  # finite values of the float8 type, |x| <= 4
        return np.asarray(s.integers(-64, 64, shape) / 16.0, dtype=np.float32).astype(t.np_dtype)
    if spread is None:
        return s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
    v = np.asarray(zp, np.int64) + s.integers(-spread, spread, shape)
    return np.clip(v, t.int_min, t.int_max).astype(t.np_dtype)


def _zero_points(mm: MatMul, t: dtypes.DType, shape: tuple, s: sampling.Stream, i: int) -> np.ndarray:
    if t.name in ref.FLOAT8_TYPES and mm.zero_points == "float8":  # "usually not used" [QuantizeLinear-21]: drawn
        return _ints(t, shape, s)
    if t.name in ref.FLOAT8_TYPES or mm.zero_points == "zero":
        return np.zeros(shape, dtype=t.np_dtype)
    if mm.zero_points == "ends":
        return np.full(shape, (t.int_min, t.int_max)[i % 2], dtype=t.np_dtype)
    return _ints(t, shape, s)


def scale_array(values, scale_type: str, shape: tuple) -> np.ndarray:
    """Scale values in the scale type (float32 values rounded to float16 / bfloat16 where that is the type)."""
    return np.asarray(values, dtype=np.float32).reshape(shape).astype(dtypes.get(scale_type).np_dtype)


def draw_dataset(mm: MatMul, s: sampling.Stream, i: int) -> list[np.ndarray]:
    """Data set i of mm (NAMES order): zero points as mm.zero_points says, a and b over their types (or within
    mm.spread of the zero points), scales as mm.scales says (random: a and b log-uniform, y_scale set from the
    accumulators so that outputs spread over the output range)."""
    at, bt, yt = (dtypes.get(t) for t in mm.types)
    az = _zero_points(mm, at, mm.a_scale_shape, s, i)
    bz = _zero_points(mm, bt, mm.b_scale_shape, s, i)
    yz = _zero_points(mm, yt, (), s, i)
    a = _ints(at, mm.a_shape, s, az if mm.a_quant != "per_row" else np.asarray(az).reshape(-1, 1), mm.spread)
    b = _ints(bt, mm.b_shape, s, bz, mm.spread)
    na, nb = int(np.prod(mm.a_scale_shape)), int(np.prod(mm.b_scale_shape))
    if mm.scales in ("pow2", "sixth"):
        xs, ws = [2.0**-7] * na, [2.0**-8] * nb
        if na > 1:
            xs[-1] = 2.0**-6
        if nb > 1:
            ws[-1] = 2.0**-9
    else:
        xs, ws = (s.octaves(-9, -3, n).tolist() for n in (na, nb))
    a_scale, b_scale = scale_array(xs, mm.scale_type, mm.a_scale_shape), scale_array(ws, mm.scale_type,
                                                                                      mm.b_scale_shape)
    if mm.scales == "pow2":
        ys = 2.0 ** -(15 + i % 3)
    elif mm.scales == "sixth":
        ys = 6 * 2.0**-15
    elif mm.scales in ("bad", "nan"):
        ys = (0.0, -2.0**-10, np.inf, np.nan, -0.0)[i % 5] if mm.scales == "bad" else np.nan
    else:
        spread = 1.0
        if at.name in ref.INT_TYPES and bt.name in ref.INT_TYPES:
            op = ref.operands(a, a_scale, az, b, b_scale, bz, np.float32(1), yz)
            acc, _ = ref.accumulate(op)
            spread = max(1.0, float(np.abs(acc).max(initial=0)))
        elif mm.scales != "nonfinite":  # float8 operands: the real acc
            da = a.astype(np.float64) - np.asarray(az, np.float64).reshape(
                (-1, 1) if mm.a_quant == "per_row" else np.shape(az))
            acc = np.matmul(da, b.astype(np.float64) - np.asarray(bz, np.float64))
            spread = max(2.0**-6, float(np.abs(acc).max(initial=0)))
        room = 1000.0 if mm.scales == "saturate" else 100.0  # |y - y_zero_point| up to room
        if yt.name in ref.FLOAT8_TYPES:  # a float8 y: half its finite range, twice it to saturate
            room = yt.finite_max * (2.0 if mm.scales == "saturate" else 0.5)
        ys = float(np.median(np.asarray(a_scale, np.float64))) * float(np.median(np.asarray(b_scale, np.float64))) \
            * spread / room
    y_scale = scale_array([ys], mm.scale_type, ())
    if mm.scales == "nonfinite":  # a[0] NaN, then +Inf where the type has one (float8e5m2)
        a = a.copy()
        a.reshape(-1)[0] = np.inf if i % 2 and at.name == "float8e5m2" else np.nan
    return [a, a_scale, az, b, b_scale, bz, y_scale, yz]


def matmul_cases(mm: MatMul, n: int, seed: int, flags: list[str]) -> Iterator[Case]:
    """n drawn data sets of mm as its node (and probe) case."""
    s = sampling.Stream(sampling.case_seed(seed, mm.name))
    yield from dataset_cases(mm, [draw_dataset(mm, s, i) for i in range(n)], seed, flags)
