"""A configuration of one com.microsoft "dequantize -> float operator -> quantize" operator (Config), its one-node
model, its drawn data sets and its node case.

Every input is a graph input (data sets may vary scales and zero points; runners/input_modes.py makes them
initializers for a backend that only takes them so). The data sets are drawn for what they must show, by kind:
  random     every quantized element and zero point uniform over T, scales (1 + u) * 2**-e (not dyadic); the output
             scale and zero point map the float result's range onto T's, within a factor 0.85 .. 1.2 (some
             elements may saturate)
  pow2       every input scale one power of two, the elements within 16 of their zero points, y_scale twice the
             float result's finest step: the result is exact in float32 and r / y_scale lands on halves, so ties
             occur and must round to even (READING_ROUNDING); the output zero point odd (adding it before rounding
             turns each tie the other way)
  saturate   the output scale a quarter of random's: most elements beyond T's ends, both ways
  ends       every element and zero point at one end of T or the other (a - zero_point spans -255 .. 255)
  every      the first quantized operand holds every value of T, in order (unary operators: the whole function)
  frac_reciprocal  y_scale = 1 / (n + 3/4), the largest result just inside T: a kernel that multiplies by an integer
             reciprocal of y_scale (QLinearSoftmax's floor(1 / y_scale)) is 3/4 of a step off at a probability of 1
  zero_y_scale  y_scale 0: quantize divides by it and the texts say nothing (undefined: the probe)
The expectation is generator.reference.qlinear_ops's, compared under mode "range": an element may be either
neighbour where the order of the float32 operations can move r / y_scale across a rounding boundary (READING_FLOAT32).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
import onnx
from onnx import helper

from generator import dtypes, sampling
from generator.case import Case, finish_model, value_info
from generator.family import Family, split
from generator.reference import float_ops
from generator.reference import qlinear_ops as ref

FAMILY = Family("qlinear_ops", "QLinearAdd", ref.SPEC_FILE, domain=ref.DOMAIN, name_prefix="test_qlinear",
                ops=tuple(ref.QOPS))  # each case test_<its operator>_<what> (case.json "op")
OPSET = 13  # the ai.onnx import beside com.microsoft 1 (the model has no ai.onnx node)
DOMAIN_OPSET = 1
POOLS = ("QLinearAveragePool", "QLinearGlobalAveragePool")  # windows of a cycle would average it away
KINDS = ("random", "random", "pow2", "pow2", "saturate", "ends")
RANGE_REASON = ("dequantize -> float32 operator -> quantize: each element the rounding of the exact value, or its "
                "neighbour where the float32 evaluation's error (in any order of its operations) reaches a rounding "
                "boundary (READING_FLOAT32); exact and ties to even where every scale is a power of two")
TOLERANT = {"widen": 1, "reason": "fixed-point requantization (onnxruntime's lookup tables, integer multipliers) is "
                                  "common practice: +-1"}


@dataclass(frozen=True)
class Config:
    what: str
    op: str
    t: str = "uint8"
    shapes: tuple = ((2, 3, 4),)  # the quantized operands' shapes (condition, tensors) in the node's order
    attrs: dict = field(default_factory=dict)  # as written on the node (the row's defaults apply where left out)
    omit: tuple = ()  # optional inputs left out (zero points: the empty name, or dropped at the end)
    scale_shape: tuple = ()  # every scale's and zero point's shape: () or (1,) [READING_SCALAR]
    kinds: tuple = KINDS

    @property
    def n_inputs(self) -> int:
        """The node's input count the slots are laid out for (QLinearConcat: 2 + 3 per tensor)."""
        return 2 + 3 * len(self.shapes) if self.op == "QLinearConcat" else len(ref.slots_of(self.op, 0))

    @property
    def slots(self) -> list[ref.Slot]:
        return ref.slots_of(self.op, self.n_inputs)

    @property
    def given(self) -> list[ref.Slot]:
        return [s for s in self.slots if s.name not in self.omit]

    @property
    def params(self) -> dict:
        return {"what": self.what, "op": self.op, "t": self.t, "shapes": [list(s) for s in self.shapes],
                "attrs": dict(self.attrs), "omitted": list(self.omit), "scale_shape": list(self.scale_shape)}


def tensor_type(cfg: Config, slot: ref.Slot) -> dtypes.DType:
    return dtypes.get({"q": cfg.t, "zp": cfg.t, "scale": "float", "cond": "bool"}[slot.kind])


def shapes_of(cfg: Config) -> dict[str, tuple]:
    """Each slot's shape: the quantized ones in order, the scales and zero points scale_shape."""
    q = iter(cfg.shapes)
    return {s.name: (tuple(next(q)) if s.kind in ("q", "cond") else tuple(cfg.scale_shape)) for s in cfg.slots}


def node_inputs(cfg: Config) -> list[str]:
    """The node's input names in slot order, "" for an omitted one, trailing omitted ones dropped."""
    names = [s.name if s.name not in cfg.omit else "" for s in cfg.slots]
    while names and names[-1] == "":
        names.pop()
    return names


def model(cfg: Config, out_shape: tuple | None, attrs: dict | None = None) -> onnx.ModelProto:
    """The one-node model: every given slot a graph input (shapes of shapes_of, symbolic where a str)."""
    shapes = shapes_of(cfg)
    ins = [value_info(s.name, tensor_type(cfg, s), shapes[s.name]) for s in cfg.given]
    row = ref.QOPS[cfg.op]
    node = helper.make_node(cfg.op, node_inputs(cfg), [row.output], domain=ref.DOMAIN,
                            **(cfg.attrs if attrs is None else attrs))
    out = value_info(row.output, dtypes.get(cfg.t), out_shape)
    graph = helper.make_graph([node], cfg.op.lower(), ins, [out])
    return finish_model(graph, OPSET, {ref.DOMAIN: DOMAIN_OPSET})


def in_slot_order(cfg: Config, data: dict) -> list:
    return [data.get(s.name) for s in cfg.slots]


def _float_result(cfg: Config, data: dict) -> tuple[np.ndarray, np.ndarray]:
    """The float operator's exact value on data (the output scale 1, zero point 0), and the elements of it that
    every float32 evaluation gives exactly."""
    probe = dict(data)
    for s in cfg.slots:
        if s.role == ref.OUT:
            probe[s.name] = np.float32(1) if s.kind == "scale" else np.zeros((), dtypes.get(cfg.t).np_dtype)
    vals, scales, _, _, full = ref.operands(cfg.op, in_slot_order(cfg, probe), cfg.attrs)
    r, _, exact = float_ops.evaluate(ref.QOPS[cfg.op].float_op, vals, scales, full)
    return r[np.isfinite(r)], r[np.isfinite(r) & exact]


def finest_step(r: np.ndarray) -> float:
    """The largest power of two that divides every element of r (float64 values; 1 where r is all zero)."""
    r = r[(r != 0) & np.isfinite(r)]
    if not r.size:
        return 1.0
    m, e = np.frexp(r)
    ints = np.abs(m * 2.0 ** 53).astype(np.int64)
    low = (ints & -ints).astype(np.float64)  # each mantissa's lowest set bit
    return float(np.min(np.ldexp(low, e - 53)))


def _output_scale(cfg: Config, data: dict, s: sampling.Stream, kind: str) -> tuple[float, int]:
    """(y_scale, y_zero_point) mapping the float result's range onto T's (see the module docstring)."""
    t = dtypes.get(cfg.t)
    lo, hi = t.int_min, t.int_max
    r, exact = _float_result(cfg, data)
    rmin, rmax = (float(r.min()), float(r.max())) if r.size else (0.0, 1.0)
    rmin, rmax = min(rmin, 0.0), max(rmax, 0.0)
    span = max(rmax - rmin, 2.0 ** -30)
    zp_given = any(sl.role == ref.OUT and sl.kind == "zp" for sl in cfg.given)
    if not zp_given:  # zero point 0: the scale must cover both signs from 0
        span = max(rmax / hi, -rmin / -lo if lo else 0.0, 2.0 ** -30) * (hi - lo)
    if kind == "frac_reciprocal":  # 1 / y_scale = n + 3/4, the largest result within T
        z = lo if zp_given else 0
        n = max(int(np.floor((hi - z) / max(rmax, 2.0 ** -30))) - 1, 1)
        return float(np.float32(1 / (n + 0.75))), z
    if kind == "pow2":  # twice the exact elements' finest step (half of them tie), coarser where T's range needs it
        ys = max(2 * finest_step(exact), 2.0 ** int(np.ceil(np.log2(span / (hi - lo)))))
    elif kind == "saturate":
        ys = span / (hi - lo) / 4
    else:
        ys = span / (hi - lo) * s.uniform(0.85, 1.2)
    ys = float(np.float32(ys))
    if not zp_given:
        return ys, 0
    if kind == "ends":
        return ys, (lo, hi)[s.integers(0, 1)]
    centre = (lo + hi) / 2 - (rmin + rmax) / 2 / ys if kind == "saturate" else lo - rmin / ys
    zp = int(np.clip(np.round(centre), lo, hi))
    if kind == "pow2" and zp % 2 == 0:  # odd: a tie rounds one way after adding it, the other way before
        zp = zp + 1 if zp < hi else zp - 1
    return ys, zp


def draw(cfg: Config, s: sampling.Stream, kind: str) -> list:
    """One data set of kind (the module docstring), in slot order (None for an omitted slot)."""
    t = dtypes.get(cfg.t)
    lo, hi = t.int_min, t.int_max
    shapes = shapes_of(cfg)
    data: dict = {}
    first = True
    pow2_scale = 2.0 ** -s.integers(3, 7)  # pow2: one scale for every input, values near their zero points
    zps = {sl.role: (lo, hi)[s.integers(0, 1)] if kind == "ends" else
           s.integers(lo + 16, hi - 16) if kind == "pow2" else s.integers(lo, hi)
           for sl in cfg.given if sl.kind == "zp" and sl.role != ref.OUT}
    for sl in cfg.given:
        shape = shapes[sl.name]
        if sl.role == ref.OUT:
            continue
        if sl.kind == "cond":
            data[sl.name] = np.asarray(s.booleans(shape), dtype=bool)
        elif sl.kind == "q":
            n = int(np.prod(shape, dtype=np.int64))
            if kind == "every" and first:
                v = np.resize(np.arange(lo, hi + 1), n)
            elif kind == "ends":
                v = np.where(s.booleans(n), hi, lo)
            elif kind == "pow2":  # an element-wise operator's first operand every residue in turn (a random start)
                centre = zps.get(sl.role, 0 if lo else 16)
                cycle = first and cfg.op not in POOLS
                steps = (np.arange(n) + s.integers(0, 32)) % 33 - 16 if cycle else s.integers(-16, 16, n)
                v = np.clip(centre + steps, lo, hi)
            else:
                v = s.integers(lo, hi, n)
            data[sl.name] = np.asarray(v).reshape(shape).astype(t.np_dtype)
            first = False
        elif sl.kind == "zp":
            data[sl.name] = np.full(shape, zps[sl.role], t.np_dtype)
        else:
            v = pow2_scale if kind == "pow2" else (1 + s.random()) * 2.0 ** -s.integers(3, 7)
            data[sl.name] = np.full(shape, v, np.float32)
    ys, zp = _output_scale(cfg, data, s, kind)
    if kind == "zero_y_scale":
        ys = 0.0
    for sl in cfg.given:
        if sl.role == ref.OUT:
            data[sl.name] = (np.full(shapes[sl.name], ys, np.float32) if sl.kind == "scale"
                             else np.full(shapes[sl.name], zp, t.np_dtype))
    return in_slot_order(cfg, data)


def datasets(cfg: Config, seed: int) -> list[list]:
    s = sampling.Stream(sampling.case_seed(seed, f"{cfg.op}/{cfg.what}"))
    return [draw(cfg, s, kind) for kind in cfg.kinds]


def chain(op: str, attrs: dict, n_inputs: int) -> dict:
    """A range spec's "chain" for a QLinear node: the operator, its attributes as written, its input count, and
    where its output zero point goes in the rounding (READING_FORMULA_ROUNDING for QLinearAdd / QLinearMul)."""
    out = {"op": op, **attrs, "n_inputs": n_inputs}
    if ref.QOPS[op].zero_point_first:
        out["zero_point_first"] = 1
    return out


def compare(cfg: Config) -> dict:
    """Mode "range" over the node's own tensors (generator/reference/dq_op_q.py dispatches to qlinear_ops.bounds)."""
    return {"mode": "range", "operands": "dq_op_q", "chain": chain(cfg.op, cfg.attrs, cfg.n_inputs),
            "tensors": {s.name: s.name for s in cfg.given}, "reason": RANGE_REASON, "tolerant": dict(TOLERANT)}


def rounding_reading(op: str) -> str:
    return ref.READING_FORMULA_ROUNDING if ref.QOPS[op].zero_point_first else ref.READING_ROUNDING


def readings(cfg: Config) -> str:
    """The readings the expectation rests on (qlinear_ops.READING_*)."""
    full = dict(ref.QOPS[cfg.op].attrs, **cfg.attrs)
    out = [rounding_reading(cfg.op), ref.READING_FLOAT32]
    if any(s.kind == "zp" for s in cfg.slots if s.name in cfg.omit):
        out.append(ref.READING_DEFAULT_ZERO_POINT)
    if full.get("ceil_mode") and full.get("count_include_pad"):
        out.append(ref.READING_CEIL)
    if cfg.scale_shape:
        out.append(ref.READING_SCALAR)
    return "; ".join(out)


def name(cfg: Config) -> str:
    return f"test_{cfg.op.lower()}_{cfg.what}"


def meta(cfg: Config, seed: int, flags: list[str]) -> dict:
    row = ref.QOPS[cfg.op]
    return FAMILY.meta(opset=OPSET, clause=row.clause, compare=compare(cfg), flags=flags, seed=seed,
                       params=cfg.params, reading=readings(cfg), op=cfg.op)


def outcome(cfg: Config, data: list, attrs: dict | None = None):
    return ref.qlinear(cfg.op, data, cfg.attrs if attrs is None else attrs)


def case_from(cfg: Config, sets: list[list], seed: int, flags: tuple, attrs: dict | None = None,
              out_shape: tuple | None = None) -> Iterator[Case]:
    """The node case (and probe) of cfg on these data sets; attrs: the node's as written, where they are not
    cfg.attrs (the explicit-defaults axis)."""
    outcomes = [outcome(cfg, d) for d in sets]
    shape = out_shape if out_shape is not None else np.shape(outcomes[0].outputs[0])
    m = meta(cfg, seed, list(flags))
    if attrs is not None:
        m["compare"]["chain"] = chain(cfg.op, attrs, cfg.n_inputs)
    yield from split(name(cfg), [[x for x in d if x is not None] for d in sets], outcomes,
                     lambda d: model(cfg, shape, attrs), m)


def cases(cfg: Config, seed: int = 0, flags: tuple = ("edge",)) -> Iterator[Case]:
    yield from case_from(cfg, datasets(cfg, seed), seed, flags)
